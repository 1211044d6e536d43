import { z } from 'zod';
import { SCOPES } from './scopes.js';

// The security area's part of the configuration: the shape of GATEWAY_API_KEYS, which src/config.ts composes
// into its schema. Kept apart from the keyring (api-keys.ts) and the pipeline that uses it: those read the
// configuration, and the configuration reads only this, so neither imports the other back.

/** Keys shorter than this are guessable; refusing them at start-up is cheaper than a breach. */
const MIN_KEY_LENGTH = 24;

export const apiKeysSchema = z
  .array(
    z.object({
      name: z.string().min(1, 'must not be empty').max(100),
      key: z.string().min(MIN_KEY_LENGTH, `must be at least ${MIN_KEY_LENGTH} characters`),
      scopes: z.array(z.enum(SCOPES)).min(1, 'must grant at least one scope'),
    }),
  )
  .superRefine((keys, ctx) => {
    const names = new Set<string>();
    const secrets = new Set<string>();
    keys.forEach((k, i) => {
      if (names.has(k.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `repeats the name "${k.name}"` });
      if (secrets.has(k.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: 'repeats another key' });
      names.add(k.name);
      secrets.add(k.key);
    });
  });

export type ApiKeyConfig = z.infer<typeof apiKeysSchema>[number];

import { z } from 'zod';
import {
  BRANDS_MAX,
  CONTACTS_MAX,
  EXPIRY_MAX_DAYS,
  LINK_COUNT_MAX,
  MESSAGE_MAX_LENGTH,
  PRICE_MAX_CENTS,
  REFS_MAX,
  SUBJECT_MAX_LENGTH,
  TOP_UP_MAX_CENTS,
  TOP_UP_MIN_CENTS,
} from './limits.js';
import { segmentProblem } from '../upstream/path-segment.js';
import { addDays, pacificToday } from '../shared/pacific-time.js';

// The rules every create input must meet before anything is sent upstream. Each rule names itself in its
// message, and paths point at the offending input field, so a client can put the message next to the field.

/** Anything that becomes a path segment upstream: refs, uuids, codes (see src/upstream/path-segment.ts). */
export const ref = z.string().superRefine((value, ctx) => {
  const problem = segmentProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** `refs` lists: each is an upstream lookup, so they are bounded (and weigh in the operation cost). */
export const refList = z.array(ref).max(REFS_MAX, `must hold at most ${REFS_MAX} refs`);

// The id is looked up as a path segment after an unclear failure, so it obeys the same rule.
export const callerId = ref.refine((id) => id.trim() === id, 'must not start or end with white space');

export const priceInCents = z
  .number()
  .int('must be a whole number of cents')
  .positive('must be positive')
  .max(PRICE_MAX_CENTS, `must be at most ${PRICE_MAX_CENTS} cents`);

const brandCode = ref.pipe(z.string().max(100, 'must be at most 100 characters'));

/** Exactly one of brand, brands or region (the GraphQL @oneOf already guarantees exactly one is set). */
export const rewardChoice = z.object({
  brand: brandCode.nullish(),
  brands: z
    .array(brandCode)
    .min(1, 'must name at least one brand')
    .max(BRANDS_MAX, `must name at most ${BRANDS_MAX} brands`)
    .refine((codes) => new Set(codes).size === codes.length, 'must not repeat a brand')
    .nullish(),
  region: z.string().min(1, 'must not be empty').nullish(),
});

/** YYYY-MM-DD after today (Pacific) and at most a year out. */
export const expiry = z.string().superRefine((value, ctx) => {
  const today = pacificToday();
  if (value <= today) ctx.addIssue({ code: 'custom', message: `must be after today (${today}, Pacific time)` });
  const latest = addDays(today, EXPIRY_MAX_DAYS);
  if (value > latest) ctx.addIssue({ code: 'custom', message: `must be at most one year out (${latest})` });
});

const contact = z.object({
  email: z.email('must be a valid email address'),
  firstName: z.string().max(100, 'must be at most 100 characters').nullish(),
  lastName: z.string().max(100, 'must be at most 100 characters').nullish(),
});

const contacts = z
  .array(contact)
  .max(CONTACTS_MAX, `must list at most ${CONTACTS_MAX} recipients`)
  .superRefine((list, ctx) => {
    const seen = new Map<string, number>();
    list.forEach((c, i) => {
      const key = c.email.trim().toLowerCase();
      const first = seen.get(key);
      if (first !== undefined) {
        ctx.addIssue({ code: 'custom', path: [i, 'email'], message: `repeats recipient ${first} (${c.email})` });
      } else {
        seen.set(key, i);
      }
    });
  });

const linkCount = z.number().int('must be a whole number').min(1, 'must be at least 1').max(LINK_COUNT_MAX, `must be at most ${LINK_COUNT_MAX}`);

export const createCampaignInput = z
  .object({
    id: callerId,
    deliveryType: z
      .enum(['EMAIL', 'SHORTLINK'], { error: 'must be EMAIL or SHORTLINK: use createDirectLinks or createEmbeddedReward for the others' })
      .nullish(),
    priceInCents,
    reward: rewardChoice,
    contacts: contacts.nullish(),
    giftTemplate: z.string().min(1, 'must not be empty').max(200).nullish(),
    subject: z.string().min(1, 'must not be empty').max(SUBJECT_MAX_LENGTH).nullish(),
    message: z.string().min(1, 'must not be empty').max(MESSAGE_MAX_LENGTH).nullish(),
    linkCount: linkCount.nullish(),
    expiry: expiry.nullish(),
  })
  .superRefine((input, ctx) => {
    const email = (input.deliveryType ?? 'EMAIL') === 'EMAIL';
    if (email) {
      if (!input.contacts?.length) {
        ctx.addIssue({ code: 'custom', path: ['contacts'], message: 'are required for email delivery' });
      }
      if (input.linkCount != null) {
        ctx.addIssue({ code: 'custom', path: ['linkCount'], message: 'applies to short links only' });
      }
      if (!input.giftTemplate) {
        for (const field of ['subject', 'message'] as const) {
          if (!input[field]) {
            ctx.addIssue({ code: 'custom', path: [field], message: 'is required for email delivery unless giftTemplate is given' });
          }
        }
      }
    } else {
      if (input.contacts != null) {
        ctx.addIssue({ code: 'custom', path: ['contacts'], message: 'are refused for link delivery (links have no recipients)' });
      }
      if (input.linkCount == null) {
        ctx.addIssue({ code: 'custom', path: ['linkCount'], message: 'is required for short links' });
      }
    }
  });

export const createDirectLinksInput = z.object({
  id: callerId,
  priceInCents,
  reward: rewardChoice,
  linkCount,
  expiry: expiry.nullish(),
});

export const createEmbeddedRewardInput = z.object({
  id: callerId,
  brand: brandCode,
  priceInCents,
});

export const addFundsInput = z.object({
  id: callerId,
  currency: z.string().regex(/^[A-Za-z]{3}$/, 'must be a 3-letter currency code such as USD'),
  amountInCents: z
    .number()
    .int('must be a whole number of cents')
    .min(TOP_UP_MIN_CENTS, `must be at least ${TOP_UP_MIN_CENTS} cents`)
    .max(TOP_UP_MAX_CENTS, `must be at most ${TOP_UP_MAX_CENTS} cents`),
});

// The caller `id` of a creating POST is its idempotency key. One namespace covers orders and top-ups (the
// specification wants every id unique from one request to the next). A replay with the same body answers the
// original response text; a different body under the same id is refused.
import stableStringify from 'safe-stable-stringify';
import type { Answer } from './context.js';
import { SandboxError } from './errors.js';
import type { SandboxState } from './state.js';

// Key order and whitespace do not make two bodies different.
const fingerprint = (route: string, body: unknown) => `${route} ${stableStringify(body)}`;

export function replayOrConflict(state: SandboxState, route: string, id: string, body: unknown): Answer | null {
  const stored = state.idempotent.get(id);
  if (!stored) return null;
  if (stored.fingerprint !== fingerprint(route, body)) {
    throw new SandboxError(
      422,
      'ERROR_ID_CONFLICT',
      'Id already used',
      'This id was already used by a different request; ids must be unique per request.',
    );
  }
  return { raw: stored.body };
}

export function remember(state: SandboxState, route: string, id: string, requestBody: unknown, response: unknown): Answer {
  const text = JSON.stringify(response);
  state.idempotent.set(id, { fingerprint: fingerprint(route, requestBody), body: text });
  return { raw: text };
}

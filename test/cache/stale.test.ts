import { describe, expect, it } from 'vitest';
import { mayAnswerStale } from '../../src/cache/stale.js';
import {
  abortedFailure,
  httpFailure,
  invalidResponseFailure,
  networkFailure,
  overloadedFailure,
  timeoutFailure,
} from '../../src/upstream/failures.js';

// Which upstream failures a cached answer may stand in for (stale-if-error): the upstream being unwell, never
// its saying no, an unreadable answer or a caller that went away.

const redact = (text: string) => text;

describe('mayAnswerStale', () => {
  it.each([
    ['a 503', httpFailure('GET /gifts', 503, null, null, redact)],
    ['a 500', httpFailure('GET /gifts', 500, null, null, redact)],
    ['a 429', httpFailure('GET /gifts', 429, null, 2, redact)],
    ['a reset connection', networkFailure('GET /gifts', { code: 'ECONNRESET' })],
    ['a timeout', timeoutFailure('GET /gifts', 10_000)],
    ['the gateway at capacity', overloadedFailure('GET /gifts', 'timeout', 5_000)],
  ])('answers stale for %s', (_, error) => {
    expect(mayAnswerStale(error)).toBe(true);
  });

  it.each([
    ['a 404', httpFailure('GET /gifts/:uuid', 404, null, null, redact)],
    ['a 422', httpFailure('GET /gifts', 422, { error: { code: 'ERROR_INVALID' } }, null, redact)],
    ['a 401', httpFailure('GET /gifts', 401, null, null, redact)],
    ['an unreadable answer', invalidResponseFailure('GET /gifts', 'not JSON')],
    ['a cancelled call', abortedFailure('GET /gifts')],
    ['an error that is not the upstream client’s', new Error('boom')],
  ])('does not for %s', (_, error) => {
    expect(mayAnswerStale(error)).toBe(false);
  });
});

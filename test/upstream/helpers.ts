// Shared by the upstream suites: a client wired to capture its logs and events, and the check that a secret
// token appears nowhere in what a failure produced.
import { inspect } from 'node:util';
import { expect } from 'vitest';
import { createUpstreamClient, type UpstreamClientOptions } from '../../src/upstream/client.js';
import type { CallEvent } from '../../src/upstream/call-event.js';
import type { UpstreamClient } from '../../src/upstream/types.js';

export const TOKEN = 'tok_live_7f3a9c2e-SECRET-b41d';

/** Small delays keep retrying suites fast; budgets are generous so only the tests about budgets hit them. */
export const FAST_RETRY = { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5, budgetMs: 5_000 };

export interface Captured {
  client: UpstreamClient;
  events: CallEvent[];
  logs: { level: 'debug' | 'warn'; obj: object; msg?: string }[];
}

export function captureClient(opts: Partial<UpstreamClientOptions> & { baseUrl: string }): Captured {
  const events: CallEvent[] = [];
  const logs: Captured['logs'] = [];
  const client = createUpstreamClient({
    token: TOKEN,
    retry: FAST_RETRY,
    // The suites inject runs of failures to test retries and recovery; the breaker has a suite of its own.
    breaker: { failures: 1_000_000 },
    onCall: (e) => events.push(e),
    logger: {
      debug: (obj, msg) => logs.push({ level: 'debug', obj, msg }),
      warn: (obj, msg) => logs.push({ level: 'warn', obj, msg }),
    },
    ...opts,
  });
  return { client, events, logs };
}

/** Awaits a promise expected to reject and returns the rejection. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

/** The token in no message, JSON form, inspected form, log line or event. */
export function expectTokenAbsent(things: unknown[], token = TOKEN): void {
  for (const thing of things) {
    const forms = [JSON.stringify(thing) ?? '', inspect(thing, { depth: 10, showHidden: true })];
    if (thing instanceof Error) forms.push(thing.message, String(thing.stack));
    for (const form of forms) expect(form).not.toContain(token);
  }
}

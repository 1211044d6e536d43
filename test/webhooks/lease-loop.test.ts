import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createMemoryWebhookStore } from '../../src/webhooks/memory-store.js';
import type { Opened } from '../../src/webhooks/source.js';
import { createWebhooks } from '../../src/webhooks/webhooks.js';

// The lease loop in one process (memory store): it runs only while it has something to do, and an endpoint left
// enabled without a worker is something to do, as it is in a shared store.

/** A subscription that opens (and yields nothing) while `refusing` is false. */
function source() {
  const state = { refusing: false, opened: 0 };
  return {
    state,
    open: (): Promise<Opened> => {
      if (state.refusing) return Promise.resolve({ ok: false, refusals: [{ message: 'the upstream did not answer', code: 'UPSTREAM_UNAVAILABLE' }] });
      state.opened += 1;
      const events: AsyncIterator<never> = { next: () => new Promise<never>(() => undefined) };
      return Promise.resolve({ ok: true, events, close: () => undefined });
    },
  };
}

describe('webhooks in one process: the lease loop', () => {
  it('tries again an endpoint whose restart after a replay was refused, and starts it once the subscription opens', async () => {
    const subscriptions = source();
    const webhooks = createWebhooks({
      store: createMemoryWebhookStore(),
      leases: { claim: () => Promise.resolve({ token: 1 }), release: () => Promise.resolve() },
      leaseMs: 30,
      egress: {
        check: () => Promise.resolve({ ok: true }),
        send: () => Promise.resolve({ kind: 'answered', status: 200, durationMs: 1, bodyExcerpt: '' }),
      },
      source: subscriptions,
      settings: { maxEndpointsPerKey: 5, timeoutMs: 1_000, retryBaseMs: 10, retryForMs: 60_000 },
      logger: { info: () => undefined, warn: () => undefined },
    });
    try {
      const registrant = { name: 'ops', scopes: ['read'] };
      const created = await webhooks.create(registrant, {
        url: 'https://receiver.example/hook',
        subscription: 'subscription { fundsChanged { funds { balances { currency } } } }',
        variables: null,
        description: null,
      });
      if (!created.ok) throw new Error('not created');
      const { id } = created.endpoint;
      expect(webhooks.running()).toEqual([id]);

      // The replay's check of its cursor opens the subscription; its restart right after is refused.
      let opens = 0;
      const open = subscriptions.open;
      subscriptions.open = () => {
        opens += 1;
        if (opens === 2) subscriptions.state.refusing = true;
        return open();
      };
      const replayed = await webhooks.replay(created.endpoint.owner, id, 'cursor-1');
      expect(replayed).toMatchObject({ ok: false });
      expect(webhooks.running()).toEqual([]);
      expect((await webhooks.get(created.endpoint.owner, id))?.enabled).toBe(true);

      // The upstream answers again: the lease loop, every 10 ms, starts the endpoint's worker.
      subscriptions.state.refusing = false;
      for (let i = 0; i < 100 && webhooks.running().length === 0; i++) await sleep(10);
      expect(webhooks.running()).toEqual([id]);
    } finally {
      webhooks.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import type { AttemptRequest } from '../../src/webhooks/attempt.js';
import { CURSOR_ALIAS } from '../../src/webhooks/document.js';
import { startWorker } from '../../src/webhooks/endpoint-worker.js';
import { createMemoryWebhookStore } from '../../src/webhooks/memory-store.js';
import type { EventResult } from '../../src/webhooks/source.js';
import type { WebhookEndpoint, WebhookStore } from '../../src/webhooks/store.js';
import { eventually } from '../support/cluster.js';

// One endpoint's worker on its own, where the order of store answers can be arranged: an event queued while the
// loop is finishing (it has just found the queue empty) must still be sent, not wait for the next event.

const ENDPOINT: WebhookEndpoint = {
  id: 'we_1',
  owner: 'ops',
  registrant: { name: 'ops', scopes: ['rewards:read'] },
  url: 'http://127.0.0.1:1/hook',
  description: null,
  subscription: 'subscription { giftStatusChanged { gift { uuid } } }',
  variables: null,
  type: 'giftStatusChanged',
  secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
  previousSecret: null,
  enabled: true,
  disabledReason: null,
  createdAt: 0,
  position: null,
  completed: false,
  generation: 0,
};

/** A subscription whose events the test pushes one at a time. */
function pushedEvents() {
  const waiting: ((result: IteratorResult<EventResult>) => void)[] = [];
  const queued: EventResult[] = [];
  return {
    push(cursor: string) {
      const event = { data: { giftStatusChanged: { [CURSOR_ALIAS]: cursor, gift: { uuid: cursor } } } };
      const next = waiting.shift();
      if (next) next({ value: event, done: false });
      else queued.push(event);
    },
    opened: {
      ok: true as const,
      close() {},
      events: {
        next: () =>
          new Promise<IteratorResult<EventResult>>((resolve) => {
            const event = queued.shift();
            if (event) resolve({ value: event, done: false });
            else waiting.push(resolve);
          }),
      },
    },
  };
}

describe('an endpoint worker', () => {
  it('sends an event queued while its loop was finding the queue empty', async () => {
    const store = createMemoryWebhookStore();
    await store.insert(ENDPOINT, 1);
    // The loop's second look at the queue (after the first delivery) reads it empty, then answers only when
    // the test lets it: by then the next event has been queued and the worker told to wake.
    let heads = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const isHolding = new Promise<void>((resolve) => (holding = resolve));
    const gated: WebhookStore = {
      ...store,
      async head(id) {
        const head = await store.head(id);
        if (++heads === 2) {
          holding();
          await held;
        }
        return head;
      },
    };
    const sent: string[] = [];
    const worker = startWorker(
      {
        store: gated,
        send: async (request: AttemptRequest) => {
          sent.push((JSON.parse(request.body) as { cursor: string }).cursor);
          return { kind: 'answered', status: 200, durationMs: 1, bodyExcerpt: '' };
        },
        settings: { timeoutMs: 1_000, retryBaseMs: 10, retryForMs: 60_000 },
        hooks: { attempt() {}, delivered() {}, expired() {} },
        disable: async () => {},
        reopen: async () => ({ ok: false, refusals: [] }),
        now: () => Date.now(),
      },
      ENDPOINT.id,
      { type: 'giftStatusChanged', responseKey: 'giftStatusChanged' },
    );
    try {
      const events = pushedEvents();
      worker.follow(events.opened);
      events.push('c1');
      await isHolding;
      events.push('c2');
      await eventually(async () => (await store.backlog(ENDPOINT.id)).pending === 1, 5, { ms: 5_000, what: 'c2 queued' });
      release();
      await eventually(() => sent.length === 2, 5, { ms: 5_000, what: `c2 sent (sent: ${sent.join(', ')})` });
      expect(sent).toEqual(['c1', 'c2']);
    } finally {
      worker.stop();
    }
  });
});

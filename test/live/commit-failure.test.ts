import { afterEach, describe, expect, it } from 'vitest';
import type { Feed, LiveEvent } from '../../src/live/feed.js';
import { LiveHub } from '../../src/live/hub.js';
import { createMemoryStore } from '../../src/live/memory-store.js';
import type { LiveStore } from '../../src/live/store.js';

// A poll that found a change whose commit then failed (Redis timing out, a connection lost mid-command) must
// find that change again: the poller's feed has moved past it, so the next tick continues from the stored
// snapshot, from before the change, instead of from its own feed.

interface Changed extends LiveEvent {
  topic: 'value';
  value: number;
}

/** The upstream: one number that the test changes. */
let world = 0;

function counterFeed(): Feed<Changed> {
  let seen = world;
  return {
    async poll(_signal, baseline) {
      const events: Changed[] = !baseline && world !== seen ? [{ topic: 'value', value: world }] : [];
      seen = world;
      return { events, ended: [] };
    },
    apply: (event) => {
      if (event.value === seen) return 'seen';
      seen = event.value;
      return 'applied';
    },
    current: () => [],
    snapshot: () => seen,
    restore: (state) => {
      seen = state as number;
    },
  };
}

let hub: LiveHub | null = null;
afterEach(() => hub?.close());

describe('a commit that fails after a poll found a change', () => {
  it('still publishes the change, once', async () => {
    world = 0;
    const memory = createMemoryStore({ leaseMs: 1_000, retentionMs: 60_000 });
    let commits = 0;
    let failNext = false;
    const store: LiveStore = Object.create(memory, {
      commit: {
        value: async (...args: Parameters<LiveStore['commit']>) => {
          commits++;
          if (failNext) {
            failNext = false;
            throw new Error('commit timed out');
          }
          return memory.commit(...args);
        },
      },
    });
    hub = new LiveHub({ store, schedule: { intervalMs: 10, jitter: 0, maxBackoffIntervals: 2 }, retentionMs: 60_000, maxPollers: 10 });
    const events = await hub.subscribe('k', counterFeed, { topic: 'value', select: (event: Changed) => event.value });
    await expect.poll(() => commits, { interval: 5, timeout: 10_000 }).toBeGreaterThanOrEqual(1);

    failNext = true;
    world = 1;
    const first = await events.next();
    expect(first.value).toBe(1);
    world = 2;
    const second = await events.next();
    // The failed commit's change arrived once: the next value is the next change, not a repeat.
    expect(second.value).toBe(2);
  }, 15_000);
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

// A request held by the sandbox's latency (SANDBOX_LATENCY_MS, a latency fault) waits on a timer that the
// sandbox's close cancels: one abort listener on the server's closing signal per request held, removed when its
// pause ends. Many requests held at once are what latency tests do, not a leak: they must not set off Node's
// MaxListenersExceededWarning (printed by `npm test`), and once they are answered no listener is left.

const HELD_AT_ONCE = 50;

let sandbox: TestSandbox | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await sandbox?.close();
});

const ping = (s: TestSandbox) => s.api('GET', '/ping').then((res) => res.status);

describe('requests held by the sandbox latency', () => {
  it(`${HELD_AT_ONCE} at once set off no MaxListenersExceededWarning`, async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      sandbox = await startTestSandbox({ latencyMs: 200 });
      const s = sandbox;
      expect(await Promise.all(Array.from({ length: HELD_AT_ONCE }, () => ping(s)))).toEqual(Array(HELD_AT_ONCE).fill(200));
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
  });

  it('leave no abort listener behind once answered', async () => {
    // Abort listeners added and removed, per target: the closing signal is the one that got one per held request.
    const net = new Map<EventTarget, { added: number; left: number }>();
    const count = (target: EventTarget, type: string, by: number) => {
      if (type !== 'abort') return;
      const entry = net.get(target) ?? { added: 0, left: 0 };
      if (by > 0) entry.added += 1;
      entry.left += by;
      net.set(target, entry);
    };
    const add = EventTarget.prototype.addEventListener;
    const remove = EventTarget.prototype.removeEventListener;
    vi.spyOn(EventTarget.prototype, 'addEventListener').mockImplementation(function (this: EventTarget, type, listener, options) {
      count(this, type, 1);
      add.call(this, type, listener, options);
    });
    vi.spyOn(EventTarget.prototype, 'removeEventListener').mockImplementation(function (this: EventTarget, type, listener, options) {
      count(this, type, -1);
      remove.call(this, type, listener, options);
    });
    sandbox = await startTestSandbox({ latencyMs: 50 });
    const s = sandbox;
    // In rounds, so that a listener left by each request would add up past Node's default of 10.
    for (let round = 0; round < 3; round++) await Promise.all(Array.from({ length: HELD_AT_ONCE }, () => ping(s)));
    const closing = [...net.values()].filter((entry) => entry.added >= 3 * HELD_AT_ONCE);
    expect(closing).toHaveLength(1);
    expect(closing[0]!.left).toBe(0);
  });
});

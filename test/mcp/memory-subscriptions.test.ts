import { describe, expect, it } from 'vitest';
import { memoryMcpSubscriptions } from '../../src/mcp/memory-subscriptions.js';

// The sessions' subscriptions of a gateway without Redis: what a client can make it hold. A session id is any
// UUID a caller sends (the store's key is a hash of it and the caller), so only what was subscribed may be kept.

describe('MCP subscriptions in memory', () => {
  it('unsubscribing, ending or recording what was seen in a session that holds nothing keeps nothing', async () => {
    const records = memoryMcpSubscriptions();
    for (let i = 0; i < 1_000; i += 1) {
      await records.unsubscribe(`unsubscribe-${i}`, 'reward://campaign/x');
      await records.end(`end-${i}`);
      await records.seen(`seen-${i}`, 'reward://campaign/x', 'hash');
    }
    expect(records.sessions).toBe(0);
  });

  it('a session is dropped once its last subscription is, and a stream that ends leaves nothing of an empty one', async () => {
    const records = memoryMcpSubscriptions();
    await records.subscribe('a', 'reward://campaign/x', 'hash', 20);
    await records.subscribe('b', 'reward://campaign/x', 'hash', 20);
    await records.unsubscribe('a', 'reward://campaign/x');
    await records.end('b');
    const stop = records.follow(
      'c',
      () => undefined,
      () => undefined,
    );
    expect(records.sessions).toBe(1);
    stop();
    expect(records.sessions).toBe(0);
  });

  it('a stream still hears of subscriptions after its session was emptied', async () => {
    const records = memoryMcpSubscriptions();
    const heard: string[][] = [];
    const stop = records.follow(
      'a',
      (resources) => heard.push([...resources.keys()]),
      () => undefined,
    );
    await records.subscribe('a', 'reward://campaign/x', 'hash', 20);
    await records.end('a');
    await records.subscribe('a', 'reward://campaign/y', 'hash', 20);
    stop();
    expect(heard).toEqual([[], ['reward://campaign/x'], [], ['reward://campaign/y']]);
  });

  it('an ended session stays ended for the time to live; ending ids in a loop keeps a bounded number', async () => {
    let now = Date.parse('2026-11-29T12:00:00Z');
    const records = memoryMcpSubscriptions(1_000, () => now);
    await records.subscribe('a', 'reward://campaign/x', 'hash', 20);
    await records.end('a');
    expect(await records.ended('a')).toBe(true);
    expect(await records.ended('b')).toBe(false);
    now += 999;
    expect(await records.ended('a')).toBe(true);
    now += 2;
    expect(await records.ended('a')).toBe(false);
    // A caller ending random ids: the newest 10,000 are kept, the oldest forgotten (its caller could start it again).
    for (let i = 0; i < 10_001; i += 1) await records.end(`random-${i}`);
    expect(await records.ended('random-0')).toBe(false);
    expect(await records.ended('random-1')).toBe(true);
    expect(await records.ended('random-10000')).toBe(true);
  });

  it('subscriptions unused for the time to live expire', async () => {
    let now = 0;
    const records = memoryMcpSubscriptions(1_000, () => now);
    await records.subscribe('a', 'reward://campaign/x', 'hash', 20);
    now = 2_000;
    await records.subscribe('b', 'reward://campaign/x', 'hash', 20);
    expect(records.sessions).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { Channel, SlowSubscriberError } from '../../src/live/channel.js';
import { FundsFeed } from '../../src/live/funds-feed.js';
import { GiftBook } from '../../src/live/gift-diff.js';
import { nextDelay } from '../../src/live/poller.js';
import type { Funds, Gift, UpstreamClient } from '../../src/upstream/types.js';

// The pieces of the live hub whose rules are easiest to pin down without a server.

describe('poll schedule', () => {
  const schedule = { intervalMs: 1_000, jitter: 0.1, maxBackoffIntervals: 12 };

  it('polls every interval, jittered within ±10%', () => {
    expect(nextDelay(0, schedule, () => 0)).toBe(900);
    expect(nextDelay(0, schedule, () => 0.5)).toBe(1_000);
    expect(nextDelay(0, schedule, () => 1)).toBe(1_100);
  });

  it('doubles the wait per consecutive failure, up to the cap', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 10].map((f) => nextDelay(f, schedule, mid))).toEqual([2_000, 4_000, 8_000, 12_000, 12_000, 12_000]);
  });
});

describe('POLL_INTERVAL_MS', () => {
  it('defaults to 5 s with a 1 s floor', () => {
    const config = loadConfig({});
    expect([config.POLL_INTERVAL_MS, config.POLL_INTERVAL_FLOOR_MS]).toEqual([5_000, 1_000]);
  });

  it('is refused below the floor', () => {
    expect(() => loadConfig({ POLL_INTERVAL_MS: '500' })).toThrow(ConfigError);
    expect(() => loadConfig({ POLL_INTERVAL_MS: '500' })).toThrow(/POLL_INTERVAL_MS must be at least POLL_INTERVAL_FLOOR_MS/);
    expect(loadConfig({ POLL_INTERVAL_MS: '50', POLL_INTERVAL_FLOOR_MS: '10' }).POLL_INTERVAL_MS).toBe(50);
  });
});

describe('subscriber channel', () => {
  it('lets a reader leave at once, even while it waits for an event', async () => {
    let closes = 0;
    const channel = new Channel<number>(() => closes++);
    const pending = channel.next();
    await channel.return();
    expect(await pending).toEqual({ value: undefined, done: true });
    channel.push(1);
    expect(await channel.next()).toEqual({ value: undefined, done: true });
    expect(closes).toBe(1);
  });

  it('delivers what was queued before it ends', async () => {
    const channel = new Channel<number>(() => undefined);
    channel.push(1);
    channel.push(2);
    channel.end();
    const values: number[] = [];
    for await (const value of channel) values.push(value);
    expect(values).toEqual([1, 2]);
  });

  it('ends a reader that falls too far behind with an error instead of buffering forever', async () => {
    const channel = new Channel<number>(() => undefined, 2);
    for (const value of [1, 2, 3]) channel.push(value);
    expect(await channel.next()).toEqual({ value: 1, done: false });
    expect(await channel.next()).toEqual({ value: 2, done: false });
    await expect(channel.next()).rejects.toBeInstanceOf(SlowSubscriberError);
    expect(await channel.next()).toEqual({ value: undefined, done: true });
  });
});

describe('gift diff', () => {
  const gift = (over: Partial<Gift> = {}): Gift => ({
    uuid: 'g1',
    campaignUuid: 'c1',
    campaignId: 'order-1',
    status: 'SENT_AND_REDEEMABLE',
    deliveryStatus: 'DELIVERED',
    priceInCents: 1_000,
    brandCode: null,
    recipientEmail: null,
    recipientName: null,
    redeliveryCount: 0,
    createdDate: null,
    deliveryDate: null,
    redeemedDate: null,
    expiry: null,
    managementDashboardLink: null,
    shortlink: null,
    ...over,
  });

  it('reports status, delivery status and resend count changes, nothing else', () => {
    const book = new GiftBook();
    const at = new Date();
    expect(book.observe(gift(), at)).toEqual({ gift: gift(), previous: null, changedAt: at });
    expect(book.observe(gift({ brandCode: 'sbxcoffeeus' }), at)).toBeNull();
    expect(book.observe(gift({ redeliveryCount: 1 }), at)?.previous).toEqual({
      status: 'SENT_AND_REDEEMABLE',
      deliveryStatus: 'DELIVERED',
      redeliveryCount: 0,
    });
    expect(book.observe(gift({ redeliveryCount: 1, status: 'REDEEMED' }), at)?.previous?.status).toBe('SENT_AND_REDEEMABLE');
    expect(book.unsettled()).toEqual([]);
  });

  it('keeps watching a reward in a status it does not know', () => {
    const book = new GiftBook();
    book.observe(gift({ status: 'ON_HOLD' }), new Date());
    expect(book.unsettled()).toHaveLength(1);
  });
  it('takes a change from another log only if it starts from what the book shows (a view, hub.ts)', () => {
    const at = new Date();
    const sent = { status: 'SENT_AND_REDEEMABLE', deliveryStatus: 'DELIVERED', redeliveryCount: 0 };
    const resent = { ...sent, redeliveryCount: 1 };
    const book = new GiftBook();
    book.observe(gift(), at);
    // Another replica's copy of a change this book already shows: seen, not handed twice.
    expect(book.advance({ gift: gift(), previous: null, changedAt: at })).toBe('seen');
    expect(book.advance({ gift: gift({ redeliveryCount: 1 }), previous: sent, changedAt: at })).toBe('applied');
    expect(book.advance({ gift: gift({ redeliveryCount: 1 }), previous: sent, changedAt: at })).toBe('seen');
    // A stale copy (from before the resend), or changes combined against an older state: only a poll can tell.
    expect(book.advance({ gift: gift({ status: 'REDEEMED' }), previous: sent, changedAt: at })).toBe('unsure');
    expect(book.all()[0]!.redeliveryCount).toBe(1);
    expect(book.advance({ gift: gift({ redeliveryCount: 1, status: 'REDEEMED' }), previous: resent, changedAt: at })).toBe('applied');
    // A reward new to another log but known here in another state.
    expect(book.advance({ gift: gift({ status: 'CANCELLED' }), previous: null, changedAt: at })).toBe('unsure');
  });
});

describe('funds feed as a view', () => {
  const funds = (available: number): Funds => ({
    balances: [{ currency: 'USD', availableInCents: available, pendingInCents: 0, reservedInCents: 0 }],
  });
  const change = (from: number, to: number) => ({ topic: 'funds' as const, funds: funds(to), previous: funds(from), changedAt: new Date() });

  it('applies a balance change that starts from the balances it shows; a copy is seen, a stale one unsure', () => {
    const view = new FundsFeed({} as UpstreamClient);
    view.restore(funds(100));
    expect(view.apply(change(100, 50))).toBe('applied');
    expect(view.apply(change(100, 50))).toBe('seen');
    expect(view.apply(change(200, 300))).toBe('unsure');
    expect(view.snapshot()).toEqual(funds(50));
  });
});

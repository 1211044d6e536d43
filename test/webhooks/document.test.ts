import { print, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_DELAY_MS, retryDelay } from '../../src/webhooks/backoff.js';
import { CURSOR_ALIAS, deliveryDocument, splitEvent, subscriptionShape } from '../../src/webhooks/document.js';

// The pure parts of delivery: how an endpoint's document is rewritten to carry each event's cursor and its
// position, and the retry waits.

const DOCUMENT = 'subscription ($c: ID) { changes: giftStatusChanged(campaign: $c) { gift { uuid } } }';

describe("an endpoint's document", () => {
  it('selects the cursor under the gateway alias and sets after when resuming', () => {
    expect(deliveryDocument(DOCUMENT, 'abc')).toBe(
      print(parse(`subscription ($c: ID) { changes: giftStatusChanged(campaign: $c, after: "abc") { gift { uuid } ${CURSOR_ALIAS}: cursor } }`)),
    );
    expect(deliveryDocument(DOCUMENT, null)).not.toContain('after');
  });

  it('names the type by the root field and finds it under its alias; the cursor leaves the data', () => {
    const shape = subscriptionShape(DOCUMENT);
    expect(shape).toEqual({ ok: true, shape: { type: 'giftStatusChanged', responseKey: 'changes' } });
    expect(splitEvent({ changes: { gift: { uuid: 'u' }, [CURSOR_ALIAS]: 'c1' } }, 'changes')).toEqual({
      cursor: 'c1',
      data: { changes: { gift: { uuid: 'u' } } },
    });
  });

  it.each([
    ['query { webhookEndpoints { id } }', /not a query/],
    ['subscription { ...F } fragment F on Subscription { fundsChanged { cursor } }', /root field directly/],
    ['subscription { fundsChanged(after: "x") { cursor } }', /must not set `after`/],
    ['subscription A { fundsChanged { cursor } } subscription B { fundsChanged { cursor } }', /exactly one operation/],
  ])('refuses %s', (document, problem) => {
    const shape = subscriptionShape(document);
    expect(shape.ok).toBe(false);
    expect(!shape.ok && shape.problem).toMatch(problem);
  });
});

describe('retry waits', () => {
  it('double from the base, between half and all of base × 2^(n-1), never above the cap', () => {
    expect(retryDelay(100, 1, () => 0)).toBe(50);
    expect(retryDelay(100, 1, () => 1)).toBe(100);
    expect(retryDelay(100, 4, () => 1)).toBe(800);
    expect(retryDelay(5_000, 40, () => 1)).toBe(MAX_RETRY_DELAY_MS);
  });
});

import { describe, expect } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import { subscribeSse, subscribeWs, wsClient, type ResultStream } from '../support/live.js';
import { test } from '../support/test.js';
import { FORMS } from './secret-forms.js';

// Subscription events are results too: an order whose recipients' names carry the upstream token (in some of
// its forms) reaches subscribers with every one of them blanked, over WebSocket and SSE.

const CHANGES = /* GraphQL */ `
  subscription Changes($campaign: ID!) {
    giftStatusChanged(campaign: $campaign, includeCurrent: true) {
      gift {
        uuid
        recipientName
      }
    }
  }
`;

// One WebSocket client for the file, to the file's gateway listening; disposed before the gateway stops.
const it = test.extend('ws', { scope: 'file' }, async ({ gateway }, { onCleanup }) => {
  const ws = wsClient(await gateway.listen());
  onCleanup(() => ws.dispose());
  return ws;
});

describe.each(['graphql-ws', 'sse'] as const)('giftStatusChanged over %s', (transport) => {
  it('blanks the token in every form it is in from the events', async ({ gateway, ws }) => {
    const token = gateway.sandbox.sandbox.token;
    const id = uniqueId('leaky');
    // Every form that fits in a name (the reward API takes up to 200 characters).
    const leaks = FORMS.filter(([, encode]) => encode(token).length <= 200);
    expect(leaks.length).toBeGreaterThan(FORMS.length / 2);
    const contacts = leaks.map(([, encode], i) => ({ email: `r${i}@example.com`, firstname: encode(token), lastname: `Last${i}` }));
    const created = await gateway.sandbox.api('POST', '/campaign', {
      id,
      price_in_cents: 1000,
      brand_codes: ['sbxcoffeeus'],
      contacts,
      subject: 's',
      message: 'm',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);

    const stream: ResultStream =
      transport === 'sse' ? subscribeSse(await gateway.listen(), CHANGES, { campaign: id }) : subscribeWs(ws, CHANGES, { campaign: id });
    try {
      const events = await stream.take(leaks.length);
      const names = events.map((e) => e.data.giftStatusChanged.gift.recipientName as string);
      expect(names).toHaveLength(leaks.length);
      for (const name of names) expect(name).toMatch(/\[redacted\].* Last\d+$/);
      const text = JSON.stringify(events);
      for (const [name, encode] of FORMS) expect(text, name).not.toContain(encode(token));
    } finally {
      stream.close();
    }
  });
});

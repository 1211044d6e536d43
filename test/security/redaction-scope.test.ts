import { randomBytes } from 'node:crypto';
import { offsetToCursor } from '@pothos/plugin-relay';
import { describe, expect } from 'vitest';
import { testWith } from '../support/test.js';

// What the redactor may touch in a response (issue 36, item 3). Gateway keys made as people make them, from a
// date, a name or the text of a cursor, must not corrupt the values the gateway makes or types itself (a
// DateTime of that day, the caller's own id, a cursor) nor what the caller sent; a secret in the upstream's
// text is still blanked.

const today = new Date().toISOString().slice(0, 10);
/** A key made as people make them: a name and today's date. */
const DATED_KEY = `acme-prod-${today}-key`;
/** A key holding the text every first cursor of a connection starts with. */
const CURSOR_KEY = `${offsetToCursor(0).slice(0, 20)}-${randomBytes(8).toString('hex')}`;
const CALLER_ID = `thank-you-${today}-0001`;

const it = testWith({
  keys: {
    ops: { name: 'ops', key: DATED_KEY, scopes: ['rewards:read', 'rewards:write'] },
    cursors: { name: 'cursors', key: CURSOR_KEY, scopes: ['rewards:read'] },
  },
});

const ORDER = /* GraphQL */ `
  query Order($ref: ID!) {
    campaign(ref: $ref) {
      id
      message
      gifts(first: 3) {
        edges {
          cursor
          node {
            campaignId
            createdDate
            observedAt
            recipientName
          }
        }
        pageInfo {
          endCursor
        }
      }
    }
  }
`;

describe('values that hold no secret come back as they were', () => {
  it('DateTimes of the day a key names, the caller id holding that day, cursors; the key in upstream text is blanked', async ({ gateway }) => {
    const created = await gateway.sandbox.api('POST', '/campaign', {
      id: CALLER_ID,
      price_in_cents: 1000,
      brand_codes: ['sbxcoffeeus'],
      contacts: [1, 2, 3].map((i) => ({ email: `r${i}@example.com`, firstname: `Ada ${today}`, lastname: `Lovelace${i}` })),
      subject: 's',
      message: `Thanks! (ops key ${DATED_KEY})`,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);

    const res = await gateway.gql(ORDER, { ref: CALLER_ID }, { authorization: `Bearer ${DATED_KEY}` });
    expect(res.body.errors).toBeUndefined();
    const campaign = res.body.data.campaign;
    expect(campaign.id).toBe(CALLER_ID);
    const edges = campaign.gifts.edges as { cursor: string; node: Record<string, string> }[];
    expect(edges.map((e) => e.cursor)).toEqual([0, 1, 2].map((i) => offsetToCursor(i)));
    expect(campaign.gifts.pageInfo.endCursor).toBe(offsetToCursor(2));
    for (const { node } of edges) {
      expect(node.campaignId).toBe(CALLER_ID);
      for (const at of [node.createdDate, node.observedAt]) expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
      // A date inside upstream text is no secret either: only 10 characters of the key.
      expect(node.recipientName).toMatch(new RegExp(`^Ada ${today} Lovelace\\d$`));
    }
    // The upstream's text holding the key whole is still blanked.
    expect(campaign.message).toBe('Thanks! (ops key [redacted])');
    expect(res.text).not.toContain(DATED_KEY);
  });
});

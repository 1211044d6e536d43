import { describe, expect } from 'vitest';
import { subscribeWs, wsClient } from '../support/live.js';
import { testWith } from '../support/test.js';
import { bearer, KEYS, KEYS_ENV } from './keys.js';

// Parse and validation errors quote the document they refuse: a key pasted into a query comes back in the
// error. Those errors are redacted like any other, over HTTP and over WebSocket, where they are sent before
// the operation runs.

const KEY = KEYS.treasurer.key;
/** The key as a GraphQL name, as a document can hold it outside a string. */
const AS_NAME = KEY.replaceAll('-', '_');
const DOCUMENTS = [
  ['a literal of the wrong type', `{ gifts(first: "${KEY}") { totalCount } }`],
  ['a syntax error at a name', `{ gifts(first: 1) { totalCount } } ${AS_NAME}`],
  ['an enum value where a string goes', `{ brands(filter: { region: ${AS_NAME} }) { totalCount } }`],
] as const;

const it = testWith({ env: KEYS_ENV });

const leaked = (text: string) => [KEY, AS_NAME].some((k) => text.includes(k.slice(0, 12)) || text.includes(k.slice(-12)));

describe('a key quoted back by a refused document', () => {
  for (const [name, query] of DOCUMENTS) {
    it(`${name}: over HTTP`, async ({ gateway }) => {
      const res = await gateway.gql(query, {}, bearer(KEYS.reader));
      expect(res.body.errors?.length).toBeGreaterThan(0);
      expect(leaked(res.text), res.text).toBe(false);
    });

    it(`${name}: over WebSocket`, async ({ gateway }) => {
      const ws = wsClient(await gateway.listen(), { connectionParams: { authorization: `Bearer ${KEYS.reader.key}` } });
      try {
        const stream = subscribeWs(ws, query);
        await stream.ended;
        const text = JSON.stringify([stream.received, stream.error]);
        expect(text).toContain('[redacted]');
        expect(leaked(text), text).toBe(false);
      } finally {
        await ws.dispose();
      }
    });
  }
});

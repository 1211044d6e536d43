import { describe, expect } from 'vitest';
import type { InProcessGateway } from '../support/gateway.js';
import { testWith } from '../support/test.js';
import { bearer, KEYS, KEYS_ENV } from './keys.js';

// A caller's x-request-id is echoed in the response, written on every log line and sent upstream: an id that
// carries a secret would leak it three times. Only short plain ids are kept, and never one holding a secret.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const lines: string[] = [];

const it = testWith({ env: { ...KEYS_ENV, LOG_LEVEL: 'debug' }, logTo: { write: (line: string) => void lines.push(line) } });

async function withId(gw: InProcessGateway, id: string) {
  lines.splice(0);
  await gw.sandbox.control.reset();
  const res = await gw.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(KEYS.reader), 'x-request-id': id },
    body: JSON.stringify({ query: '{ viewer { username } }' }),
  });
  const body = await res.text();
  const { requestIds } = await gw.sandbox.control.stats();
  return { echoed: res.headers.get('x-request-id'), body, log: lines.join(''), upstreamIds: Object.keys(requestIds) };
}

describe('x-request-id', () => {
  it('keeps a plain id of up to 64 letters, digits, dots, dashes and underscores', async ({ gateway }) => {
    const id = `Abc.def-0_${'9'.repeat(54)}`;
    expect(id).toHaveLength(64);
    const { echoed, log, upstreamIds } = await withId(gateway, id);
    expect(echoed).toBe(id);
    expect(log).toContain(`"requestId":"${id}"`);
    expect(upstreamIds).toEqual([id]);
  });

  it('replaces an id that is too long or holds anything else with a fresh one', async ({ gateway }) => {
    for (const id of ['a'.repeat(65), 'a:b', 'a/b', 'a+b=', 'me@example', 'a b', 'é']) {
      const { echoed, upstreamIds } = await withId(gateway, id);
      expect(echoed, id).toMatch(UUID);
      expect(upstreamIds).toEqual([echoed]);
    }
  });

  const secrets: [string, (gateway: InProcessGateway) => string][] = [
    ['its own API key', () => KEYS.reader.key],
    ['another API key', () => KEYS.treasurer.key],
    ['the upstream token', (gateway) => gateway.sandbox.sandbox.token],
    ['an API key inside a longer id', () => `trace-${KEYS.writer.key}-1`],
    ['an API key upper-cased', () => KEYS.reader.key.toUpperCase()],
    // As long as a run that matters (docs/operations.md#secrets): 16 characters.
    ['the start of an API key', () => KEYS.reader.key.slice(0, 16)],
  ];
  for (const [name, secret] of secrets) {
    it(`never keeps ${name}: not echoed, not logged, not sent upstream`, async ({ gateway }) => {
      const id = secret(gateway);
      expect(id).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
      const { echoed, body, log, upstreamIds } = await withId(gateway, id);
      expect(echoed).toMatch(UUID);
      expect(upstreamIds).toEqual([echoed]);
      expect(log).toContain(echoed);
      for (const text of [body, log]) expect(text).not.toContain(id);
    });
  }
});

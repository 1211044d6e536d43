import { describe, expect } from 'vitest';
import { it } from '../support/test.js';
import { type TestSandbox } from '../support/sandbox.js';
import { create, emailOrder, giftsOf } from './helpers.js';

// GET /__sandbox/ (the address `npm start` prints) lists every control route with one example, and each
// example works as printed once a real gift uuid replaces the placeholder.

interface IndexEntry {
  method: string;
  path: string;
  does: string;
  example: string;
}

async function index(sandbox: TestSandbox, path = '/__sandbox/'): Promise<{ status: number; routes: IndexEntry[] }> {
  const res = await fetch(`${sandbox.sandbox.origin}${path}`);
  return { status: res.status, routes: ((await res.json()) as { routes: IndexEntry[] }).routes };
}

/** Runs `curl -s [-X METHOD] URL [-H '…' -d 'BODY']` with fetch. */
async function runCurl(command: string): Promise<{ status: number; body: any }> {
  const match = /^curl -s(?: -X (\w+))? (\S+)(?: -H 'content-type: application\/json' -d '(.*)')?$/.exec(command);
  expect(match, command).not.toBeNull();
  const [, method = 'GET', url, body] = match!;
  const res = await fetch(url!, { method, ...(body ? { headers: { 'content-type': 'application/json' }, body } : {}) });
  return { status: res.status, body: await res.json() };
}

describe('the control index', () => {
  it('answers at /__sandbox/ and /__sandbox with every control route', async ({ sandbox }) => {
    for (const path of ['/__sandbox/', '/__sandbox']) {
      const { status, routes } = await index(sandbox, path);
      expect(status).toBe(200);
      expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual([
        'POST /__sandbox/reset',
        'GET /__sandbox/stats',
        'POST /__sandbox/gifts/:uuid/redeem',
        'POST /__sandbox/gifts/:uuid/bounce',
        'POST /__sandbox/gifts/:uuid/expire',
        'POST /__sandbox/funds',
        'POST /__sandbox/clock',
        'POST /__sandbox/faults',
        'DELETE /__sandbox/faults',
        'POST /__sandbox/capacity',
      ]);
      for (const route of routes) expect(route.does, route.path).toMatch(/\w{3,}/);
    }
  });

  it('gives examples that work as printed', async ({ sandbox }) => {
    const order = await create(sandbox, '/campaign', emailOrder({ contacts: ['a', 'b', 'c'].map((n) => ({ email: `${n}@example.com` })) }));
    const uuids = (await giftsOf(sandbox, order.campaign.uuid)).map((g) => g.uuid as string);
    const { routes } = await index(sandbox);
    const expected: Record<string, (body: any) => void> = {
      'POST /__sandbox/gifts/:uuid/redeem': (body) => expect(body.gift.status).toBe('REDEEMED'),
      'POST /__sandbox/gifts/:uuid/bounce': (body) => expect(body.gift.delivery_status).toBe('TEMPORARILY_UNDELIVERABLE'),
      'POST /__sandbox/gifts/:uuid/expire': (body) => expect(body.gift.status).toBe('EXPIRED'),
      'POST /__sandbox/funds': (body) => expect(body.fundsbycurrency.USD.available_in_cents).toBeGreaterThan(0),
      'POST /__sandbox/clock': (body) => expect(body.offset_ms).toBe(86_400_000),
      'POST /__sandbox/faults': (body) => expect(body.rules).toBe(1),
      'DELETE /__sandbox/faults': (body) => expect(body.rules).toBe(0),
      'GET /__sandbox/stats': (body) => expect(body.requests['POST /campaign']).toBe(1),
    };
    // Reset last: it would forget the gifts the others act on.
    for (const route of [...routes.slice(1), routes[0]!]) {
      const command = route.example.replace('<gift-uuid>', route.path.includes(':uuid') ? uuids.shift()! : '');
      const res = await runCurl(command);
      expect(res.status, `${command}: ${JSON.stringify(res.body)}`).toBe(200);
      expected[`${route.method} ${route.path}`]?.(res.body);
    }
    expect((await sandbox.control.stats()).requests).toEqual({});
  });
});

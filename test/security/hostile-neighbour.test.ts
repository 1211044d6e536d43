import { describe, expect } from 'vitest';
import { eventually } from '../support/cluster.js';
import { testWith } from '../support/test.js';
import { bearer, KEYS, KEYS_ENV } from './keys.js';

// One key floods fan-out queries at its rate limit against a slow upstream while another key reads its
// account and a load balancer polls /health. The flood must not starve them: its worst operations are refused by
// cost before they run, and /health never queues. The first test's victim makes no upstream call and its slow
// lookups free slots every 300 ms, so it would pass with one pool for every key; the second holds the flood's
// lookups longer than a call may wait for a slot, which only the slots the bulkhead keeps from the flood's key
// (those beyond its share and half of the rest) leave answerable.

const it = testWith({ env: { ...KEYS_ENV, RATE_LIMIT_PER_SECOND: '20', RATE_LIMIT_BURST: '20' } });

const refs = Array.from({ length: 100 }, (_, i) => `flood-${i}`);
const wide = `query($v: [ID!]!) { ${Array.from({ length: 20 }, (_, i) => `a${i}: campaigns(refs: $v) { uuid }`).join(' ')} }`;
const narrow = 'query($v: [ID!]!) { campaigns(refs: $v) { uuid } }';

interface Timed {
  ms: number;
  ok: boolean;
  detail: string;
}

async function timed(send: () => Promise<Response>, ok: (status: number, body: any) => boolean): Promise<Timed> {
  const started = performance.now();
  const res = await send();
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // /health answers JSON; anything else is a failure reported below.
  }
  return { ms: Math.round(performance.now() - started), ok: ok(res.status, body), detail: `${res.status} ${text.slice(0, 200)}` };
}

describe('a key flooding at its rate limit', () => {
  // Flooding for seconds, then waiting for the flood's answers: far longer than the default test timeout.
  it('leaves /health and another key served', { timeout: 120_000 }, async ({ gateway }) => {
    // Every order lookup takes 300 ms: 128 upstream slots serve ~430 lookups/s, less than the flood asks.
    await gateway.sandbox.control.fault({ route: 'GET /campaign/:id', latency_ms: 300, rate: 1 });
    // Over the socket (listen()): /health is not a yoga route, and the flood is real connections.
    const url = await gateway.listen();
    const stop = new AbortController();
    const flood: Promise<unknown>[] = [];
    const floodCodes = new Map<string, number>();
    // 20 operations per second for 3 s, alternating the 2,000-lookup query and a 100-lookup one.
    for (let i = 0; i < 60; i++) {
      const query = i % 2 === 0 ? wide : narrow;
      flood.push(
        fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...bearer(KEYS.reader) },
          body: JSON.stringify({ query, variables: { v: refs } }),
          signal: stop.signal,
        })
          .then((res) => res.json())
          .then((body: any) => {
            for (const e of body.errors ?? []) floodCodes.set(e.extensions?.code, (floodCodes.get(e.extensions?.code) ?? 0) + 1);
          })
          .catch(() => undefined),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (i % 6 === 5) {
        // While the flood runs: the victim's read and the probe, measured side by side.
        const [viewer, health] = await Promise.all([
          timed(
            () =>
              fetch(`${url}/graphql`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', ...bearer(KEYS.writer) },
                body: JSON.stringify({ query: '{ viewer { username } }' }),
              }),
            (status, body) => status === 200 && typeof body?.data?.viewer?.username === 'string' && !body.errors,
          ),
          timed(
            () => fetch(`${url}/health`),
            (status) => status === 200,
          ),
        ]);
        victim.push(viewer);
        probes.push(health);
      }
    }
    stop.abort();
    await Promise.all(flood);

    expect(victim.length).toBe(10);
    for (const v of victim) expect(v.ok, v.detail).toBe(true);
    for (const h of probes) expect(h.ok, h.detail).toBe(true);
    // The 2,000-lookup operations were refused by cost before running, not queued.
    expect(floodCodes.get('COST_LIMIT_EXCEEDED')).toBeGreaterThan(0);
    console.info(
      `victim { viewer } ms: ${victim.map((v) => v.ms).join(' ')}; /health ms: ${probes.map((p) => p.ms).join(' ')}; ` +
        `flood errors: ${JSON.stringify(Object.fromEntries(floodCodes))}`,
    );
  });
});

describe('a key whose lookups hang', () => {
  it(
    "holds its share of the upstream slots and half of the rest, no more: another key's read is answered, not queued behind it",
    { timeout: 60_000 },
    async ({ gatewayWith }) => {
      // Each call may wait for its answer longer than the lookups hang, so the flood's calls hold their slots throughout.
      const gw = await gatewayWith({ env: { ...KEYS_ENV, UPSTREAM_TIMEOUT_MS: '30000' } });
      // Longer than UPSTREAM_QUEUE_TIMEOUT_MS (5 s): with one pool for all keys (UPSTREAM_KEY_SHARE=1) the funds read
      // below would wait behind these for a slot until its deadline (checked: it fails, UPSTREAM_TIMEOUT).
      await gw.sandbox.control.fault({ route: 'GET /campaign/:id', latency_ms: 20_000, rate: 1 });
      const stop = new AbortController();
      // 300 lookups: more than every slot of the gateway (UPSTREAM_MAX_IN_FLIGHT, 128).
      const flood = [0, 1, 2].map((round) =>
        gw
          .fetch('/graphql', {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...bearer(KEYS.reader) },
            body: JSON.stringify({ query: narrow, variables: { v: refs.map((ref) => `${ref}-${round}`) } }),
            signal: stop.signal,
          })
          .catch(() => undefined),
      );
      // The flood holds what it may: its share (64 of 128 slots) and half of the 64 no other key uses.
      await eventually(async () => ((await gw.sandbox.control.stats()).requests['GET /campaign/:id'] ?? 0) >= 96);
      const victim = await gw.gql('{ funds { balances { currency } } }', {}, bearer(KEYS.fundsReader));
      expect(victim.status, victim.text).toBe(200);
      expect(victim.body.errors, victim.text).toBeUndefined();
      expect(victim.body.data.funds.balances.length).toBeGreaterThan(0);
      // And it never held more: the other 32 stayed free for other keys.
      expect((await gw.sandbox.control.stats()).requests['GET /campaign/:id']).toBe(96);
      stop.abort();
      await gw.sandbox.control.clearFaults();
      await Promise.all(flood);
    },
  );
});

const victim: Timed[] = [];
const probes: Timed[] = [];

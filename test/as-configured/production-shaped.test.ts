import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeyIssuer, type KeyIssuer } from '../identity/issuers.js';
import { createTestGateway, type InProcessGateway } from '../support/gateway.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

// The gateway as an operator runs it, not as the other suites find convenient: production mode, every default
// left as it is (the read cache on, the default rate limits, the breaker and retry timings), an upstream token
// a person chose (it holds today's date), API keys made as the docs say, two token issuers whose subjects share
// a name, Kubernetes-style probes through an upstream outage. Each of these hid a defect behind the suites'
// random keys, short intervals and the cache off (issue 36).

const today = new Date().toISOString().slice(0, 10);
// The upstream's token is not ours to choose: this one shares today's date with every DateTime of the day.
const UPSTREAM_TOKEN = `acme-live-${today}-0001`;
const AUDIENCE = 'https://rewards.example.com/graphql';
const strongKey = () => `rgw_${randomBytes(32).toString('base64url')}`;
const KEYS = {
  web: { name: 'web-frontend', key: strongKey(), scopes: ['rewards:read', 'rewards:write', 'funds:read'] },
  report: { name: 'nightly-report', key: strongKey(), scopes: ['rewards:read'] },
};
const bearer = (k: { key: string }) => ({ authorization: `Bearer ${k.key}` });

/** Every log line the gateways wrote, as an operator's log shipper receives them. */
const logLines: string[] = [];
const logTo = { write: (line: string) => void logLines.push(line) };

let sandbox: TestSandbox;
let gateway: InProcessGateway;
let issuers: [KeyIssuer, KeyIssuer];

/** A production gateway over the file's sandbox with what an operator must set, and `more` of their choosing. */
const productionGateway = (more: Record<string, string>) =>
  createTestGateway(sandbox, {
    asConfigured: true,
    logTo,
    env: {
      NODE_ENV: 'production',
      REWARD_API_URL: sandbox.sandbox.baseUrl,
      REWARD_API_TOKEN: UPSTREAM_TOKEN,
      GATEWAY_API_KEYS: JSON.stringify(Object.values(KEYS)),
      ...more,
    },
  });

beforeAll(async () => {
  sandbox = await startTestSandbox({ token: UPSTREAM_TOKEN });
  issuers = [await startKeyIssuer(AUDIENCE), await startKeyIssuer(AUDIENCE)];
  gateway = productionGateway({ AUTH_JWT_ISSUERS: JSON.stringify(issuers.map((i) => ({ issuer: i.issuer, audience: AUDIENCE }))) });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([sandbox?.close(), ...(issuers ?? []).map((i) => i.close())]);
});

const CREATE = `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) {
  __typename ... on CreateCampaignPayload { campaign { id uuid } } } }`;

async function createOrder(id: string, rewards: number): Promise<string> {
  const res = await gateway.gql(
    CREATE,
    {
      input: {
        id,
        priceInCents: 1000,
        reward: { brand: 'sbxcoffeeus' },
        contacts: Array.from({ length: rewards }, (_, i) => ({ email: `ada.${i}@example.com` })),
        subject: 'Thanks',
        message: 'Thank you.',
      },
    },
    bearer(KEYS.web),
  );
  expect(res.body.data?.createCampaign?.__typename, res.text).toBe('CreateCampaignPayload');
  return res.body.data.createCampaign.campaign.uuid;
}

describe('values the gateway makes or types are never redacted', () => {
  it('today’s dates, a caller id holding a date and the cursors come back as they are', async () => {
    const id = `thank-you-${today}-0001`;
    const uuid = await createOrder(id, 3);
    const PAGE = `query($ref: ID!, $after: String) { campaign(ref: $ref) { id uuid observedAt
      gifts(first: 1, after: $after) { pageInfo { endCursor hasNextPage } edges { cursor node { uuid createdDate expiresAt } } } } }`;
    const seen = new Set<string>();
    let after: string | null = null;
    for (let page = 0; page < 3; page++) {
      const res: { text: string; body: any } = await gateway.gql(PAGE, { ref: id, after }, bearer(KEYS.web));
      expect(res.text).not.toContain('[redacted]');
      const campaign: any = res.body.data.campaign;
      expect(campaign).toMatchObject({ id, uuid });
      expect(campaign.observedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      const [edge] = campaign.gifts.edges;
      expect(edge.node.createdDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
      seen.add(edge.node.uuid);
      // The cursor resumes: every page is a reward not seen before.
      after = campaign.gifts.pageInfo.endCursor;
      if (!campaign.gifts.pageInfo.hasNextPage) break;
    }
    expect(seen.size).toBe(3);
  });
});

describe('an upstream outage, as a Kubernetes probe sees it', () => {
  it('/ready stays 200 and says the upstream is down; reads answer from the cache or as UPSTREAM_UNAVAILABLE', async () => {
    const cached = await createOrder(`outage-${today}-0002`, 1);
    const READ = `query($ref: ID!) { campaign(ref: $ref) { uuid status } }`;
    expect((await gateway.gql(READ, { ref: cached }, bearer(KEYS.web))).body.data.campaign.uuid).toBe(cached);
    // Every route of the reward API fails from now on, connections reset, until the fault is cleared.
    await sandbox.control.fault({ reset: true, rate: 1 });
    try {
      const probes: { status: number; body: any }[] = [];
      const reads: any[] = [];
      // A readiness probe every period while traffic keeps coming: as many probes as the breaker needs to open.
      for (let i = 0; i < 12; i++) {
        const ready = await gateway.fetch('/ready');
        probes.push({ status: ready.status, body: await ready.json() });
        reads.push((await gateway.gql(READ, { ref: `never-seen-${i}` }, bearer(KEYS.web))).body);
        await sleep(20);
      }
      expect(probes.map((p) => p.status)).toEqual(probes.map(() => 200));
      expect(JSON.stringify(probes.at(-1)!.body)).toMatch(/upstream/);
      for (const body of reads) {
        expect(body.errors?.[0]?.extensions?.code, JSON.stringify(body)).toMatch(/^UPSTREAM_(UNAVAILABLE|ERROR|TIMEOUT)$/);
      }
      // What was read before the outage is still served.
      const stale = await gateway.gql(READ, { ref: cached }, bearer(KEYS.web));
      expect(stale.body.data?.campaign?.uuid, stale.text).toBe(cached);
    } finally {
      await sandbox.control.clearFaults();
    }
  });
});

describe('two issuers, one subject name', () => {
  it('bob at one issuer spending his rate limit leaves bob at the other served', async () => {
    const [a, b] = issuers;
    const tokenA = await a.sign({ sub: 'bob', scope: 'rewards:read' });
    const tokenB = await b.sign({ sub: 'bob', scope: 'rewards:read' });
    const ask = (token: string) => gateway.gql('{ caller { subject } }', undefined, { authorization: `Bearer ${token}` });
    // Bob at A asks far past the default burst; bob at B asks ten times in the middle of it.
    const answers = await Promise.all(Array.from({ length: 110 }, (_, i) => ask(i % 11 === 5 ? tokenB : tokenA).then((r) => ({ i, r }))));
    const limited = (r: { body: any }) => r.body.errors?.[0]?.extensions?.code === 'RATE_LIMITED';
    const atA = answers.filter(({ i }) => i % 11 !== 5);
    const atB = answers.filter(({ i }) => i % 11 === 5);
    expect(atA.filter(({ r }) => limited(r)).length).toBeGreaterThan(20);
    for (const { r } of atB) expect(r.body.errors, r.text).toBeUndefined();
  });
});

describe('a neighbour flooding reads within its own rate limit', () => {
  let shared: InProcessGateway;
  beforeAll(async () => {
    // The reward API allows this account 4 requests a second, and the operator says so.
    shared = productionGateway({ UPSTREAM_RATE_LIMIT_PER_SECOND: '4', UPSTREAM_RATE_LIMIT_BURST: '4' });
  });
  afterAll(() => shared?.close());

  it('leaves every write of another key answered', { timeout: 90_000 }, async () => {
    const refs = Array.from({ length: 20 }, (_, i) => `report-${today}-${i}`);
    const stop = new AbortController();
    const floodCodes = new Set<string>();
    // Four loops, as a report job runs them; a short pause between queries (a refusal answered in process
    // touches no socket, and a loop of them would never yield to the timers).
    const flood = Array.from({ length: 4 }, async () => {
      while (!stop.signal.aborted) {
        await sleep(20);
        // Refs not read before: the read cache (negative answers too) cannot serve them.
        const r = refs.map((ref) => `${ref}-${randomBytes(3).toString('hex')}`);
        const res = await shared.gql('query($r: [ID!]!) { campaigns(refs: $r) { uuid } }', { r }, bearer(KEYS.report));
        for (const e of res.body.errors ?? []) floodCodes.add(e.extensions?.code ?? e.message);
      }
    });
    const outcomes: string[] = [];
    try {
      for (let round = 0; round < 4; round++) {
        await sleep(250);
        const created = await shared.gql(
          CREATE,
          {
            input: {
              id: `web-${today}-${round}-${randomBytes(3).toString('hex')}`,
              priceInCents: 1000,
              // A brand the catalog cache has not read yet in round 0: the create's catalog read is the write's too.
              reward: { brand: round % 2 ? 'sbxcoffeeus' : 'sbxbooksus' },
              contacts: [{ email: 'grace@example.com' }],
              subject: 'Thanks',
              message: 'Thank you.',
            },
          },
          bearer(KEYS.web),
        );
        outcomes.push(created.body.data?.createCampaign?.__typename ?? created.body.errors?.[0]?.extensions?.code);
        const uuid = created.body.data?.createCampaign?.campaign?.uuid;
        if (!uuid) continue;
        const gift = await sandbox.api('GET', `/gifts?campaign_uuid=${uuid}`);
        const giftUuid = gift.body?.gifts?.[0]?.uuid ?? gift.body?.[0]?.uuid;
        const cancelled = await shared.gql('mutation($u: ID!) { cancelGift(uuid: $u) { __typename } }', { u: giftUuid }, bearer(KEYS.web));
        outcomes.push(cancelled.body.data?.cancelGift?.__typename ?? cancelled.body.errors?.[0]?.extensions?.code);
      }
    } finally {
      stop.abort();
      await Promise.all(flood);
    }
    expect(outcomes).toEqual(Array.from({ length: 4 }, () => ['CreateCampaignPayload', 'GiftPayload']).flat());
    // The flood itself is refused only with codes of the catalogue, never an internal error.
    expect([...floodCodes].filter((code) => !/^(UPSTREAM_BUSY|GATEWAY_OVERLOADED|RATE_LIMITED)$/.test(code))).toEqual([]);
  });
});

describe('the log an operator ships', () => {
  it('holds no secret and alters no timestamp: nothing in this file logged a secret, so nothing is blanked', () => {
    expect(logLines.length).toBeGreaterThan(0);
    const all = logLines.join('');
    expect(all).not.toContain(UPSTREAM_TOKEN);
    for (const key of Object.values(KEYS)) expect(all).not.toContain(key.key);
    for (const line of logLines) expect((JSON.parse(line) as { time: string }).time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
  });
});

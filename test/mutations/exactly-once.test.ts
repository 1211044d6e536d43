import { describe, expect } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import type { InProcessGateway } from '../support/gateway.js';
import { testWith } from '../support/test.js';

// Money safety under a flaky upstream: every create succeeds exactly once, counted by the sandbox's own
// record of orders created per caller id (not by our logs).

const it = testWith({
  sandboxOptions: { balances: { USD: 100_000_000 } },
  env: { UPSTREAM_RETRY_ATTEMPTS: '8', UPSTREAM_RETRY_BUDGET_MS: '8000' },
});
it.beforeAll(async ({ sandbox }) => {
  // 30% of creates fail: resets and 503s, half of them after the order was already made (the answer is
  // lost, the order exists), which is the case only idempotent retries plus a lookup get right.
  for (const route of ['POST /campaign', 'POST /direct_links']) {
    await sandbox.control.fault({ route, reset: true, rate: 0.08 });
    await sandbox.control.fault({ route, status: 503, rate: 0.08 });
    await sandbox.control.fault({ route, reset: true, rate: 0.08, after: true });
    await sandbox.control.fault({ route, status: 503, rate: 0.08, after: true });
  }
});

const CREATE = `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) {
  __typename ... on CreateCampaignPayload { campaign { id uuid } } } }`;
const LINKS = `mutation($input: CreateDirectLinksInput!) { createDirectLinks(input: $input) {
  __typename ... on CreateCampaignPayload { links campaign { id uuid } } } }`;

type Job = () => Promise<{ id: string; uuid: string; links?: string[] }>;

function jobs(gateway: InProcessGateway, ids: string[]): Job[] {
  return ids.map((id, i) =>
    i % 2 === 0
      ? async () => {
          const { body } = await gateway.gql(CREATE, {
            input: {
              id,
              priceInCents: 1000,
              reward: { brand: 'sbxcoffeeus' },
              contacts: [{ email: `r${i}@example.com` }],
              subject: 's',
              message: 'm',
            },
          });
          expect(body.data?.createCampaign?.__typename, JSON.stringify(body)).toBe('CreateCampaignPayload');
          return body.data.createCampaign.campaign;
        }
      : async () => {
          const { body } = await gateway.gql(LINKS, { input: { id, priceInCents: 1000, reward: { brand: 'sbxcoffeeus' }, linkCount: 2 } });
          expect(body.data?.createDirectLinks?.__typename, JSON.stringify(body)).toBe('CreateCampaignPayload');
          expect(body.data.createDirectLinks.links).toHaveLength(2);
          return { ...body.data.createDirectLinks.campaign, links: body.data.createDirectLinks.links };
        },
  );
}

async function runInBatches(work: Job[], size = 8) {
  const results = [];
  for (let i = 0; i < work.length; i += size) results.push(...(await Promise.all(work.slice(i, i + size).map((job) => job()))));
  return results;
}

describe('exactly-once creates under upstream faults', () => {
  it('40 creates all succeed, each id is created once, and sending them again creates nothing', async ({ gateway, sandbox }) => {
    const ids = Array.from({ length: 40 }, () => uniqueId('once'));
    const first = await runInBatches(jobs(gateway, ids));
    const afterFirst = await sandbox.control.stats();
    for (const id of ids) expect(afterFirst.creates[id], id).toBe(1);
    const faulted = (afterFirst.requests['POST /campaign'] ?? 0) + (afterFirst.requests['POST /direct_links'] ?? 0);
    expect(faulted).toBeGreaterThan(40); // the faults really fired and were retried through

    const second = await runInBatches(jobs(gateway, ids));
    const afterSecond = await sandbox.control.stats();
    for (const id of ids) expect(afterSecond.creates[id], id).toBe(1);
    expect(second.map((c) => c.uuid)).toEqual(first.map((c) => c.uuid));
    expect(second.map((c) => c.links)).toEqual(first.map((c) => c.links));
  });
});

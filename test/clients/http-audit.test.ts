import { serverAudits } from 'graphql-http';
import { describe, expect } from 'vitest';
import { it } from '../support/test.js';
import { fetchFrom } from './local-address.js';

// The official GraphQL-over-HTTP audit (graphql-http's serverAudits), as a client developer runs it against
// `npm start`: keyless development, the default rate limit (20/s, burst 40), twice in a row. It must report
// nothing, not even a notice, both times, also while another local tool has spent all of its own rate.

const DEFAULT_LIMITS = { RATE_LIMIT_PER_SECOND: '20', RATE_LIMIT_BURST: '40' };

async function audit(url: string, fetchFn: typeof fetch): Promise<string[]> {
  const problems: string[] = [];
  for (const { name, fn } of serverAudits({ url: `${url}/graphql`, fetchFn })) {
    const result = await fn();
    if (result.status !== 'ok') problems.push(`${result.status}: ${name}: ${result.reason}`);
  }
  return problems;
}

describe('graphql-http audit in keyless development', () => {
  it('passes twice in a row with no error, warning or notice, beside a tool past its own rate', async ({ gatewayWith }) => {
    const gw = await gatewayWith({ listen: true, env: DEFAULT_LIMITS });
    // Another local tool bursts until it is refused: its bucket, not everyone's.
    const flood = fetchFrom('127.0.0.3');
    let refused: Response | undefined;
    for (let i = 0; i < 100 && !refused; i++) {
      const res = await flood(`${gw.url}/graphql?query=${encodeURIComponent('{ __typename }')}`);
      if (res.status === 429) refused = res;
      else await res.arrayBuffer();
    }
    expect(refused?.status).toBe(429);
    expect((await refused!.json()).errors[0].message).toMatch(/127\.0\.0\.3.*RATE_LIMIT_PER_SECOND/);
    await flood.close();

    // The audit's 61 requests per run at the documented rate: the limit never refuses a client keeping to it.
    const auditor = fetchFrom('127.0.0.2', 1000 / 20);
    expect(await audit(gw.url, auditor)).toEqual([]);
    expect(await audit(gw.url, auditor)).toEqual([]);
    await auditor.close();
  }, 60_000);
});

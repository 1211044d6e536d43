import { describe, expect } from 'vitest';
import type { LiveListener } from '../../src/live/listener.js';
import type { InProcessGateway } from '../support/gateway.js';
import { testWith } from '../support/test.js';
import { scrape, valueOf } from './prometheus.js';

// /metrics after real traffic through a real gateway and sandbox: every series is checked by its exact labels
// and value, so a renamed label or a double count fails here.

// Four attempts per call, set here rather than taken from the default, so the fault counts below line up.
const it = testWith({ env: { POLL_INTERVAL_FLOOR_MS: '10', POLL_INTERVAL_MS: '50', UPSTREAM_RETRY_ATTEMPTS: '4' } });

/** Resolves with the first report a live hook of `gw` gives. */
function next<K extends keyof LiveListener>(gw: InProcessGateway, hook: K): Promise<Parameters<NonNullable<LiveListener[K]>>[0]> {
  return new Promise((resolve) => {
    const stop = gw.gateway.live.listen({
      [hook]: (report: never) => {
        stop();
        resolve(report);
      },
    });
  });
}

describe('GET /metrics', () => {
  it('counts operations, upstream calls, retries and loader batches from real traffic', async ({ gateway: gw }) => {
    for (let i = 0; i < 2; i++) expect((await gw.gql('query Viewer { viewer { username } }')).body.errors).toBeUndefined();

    await gw.sandbox.control.fault({ route: 'GET /funds', status: 503, rate: 1 });
    const failed = await gw.gql('query Funds { funds { balances { currency } } }');
    expect(failed.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    await gw.sandbox.control.clearFaults();

    // One 503, then the retry answers.
    await gw.sandbox.control.fault({ route: 'GET /regions', status: 503, rate: 1, count: 1 });
    expect((await gw.gql('{ regions { id } }')).body.errors).toBeUndefined();

    const three = await gw.gql('query Three { campaigns(refs: ["m-1", "m-2", "m-3"]) { id } }');
    expect(three.body).toEqual({ data: { campaigns: [null, null, null] } });

    expect((await gw.gql('query Bad { nope }')).body.errors).toHaveLength(1);
    expect((await gw.gql('query {')).body.errors).toHaveLength(1);

    // /metrics is a route of the server, not of yoga: scraped over the socket.
    const { contentType, samples } = await scrape(await gw.listen());
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const op = (name: string, type: string, outcome: string) => ({ operation_name: name, operation_type: type, outcome });

    expect(valueOf(samples, 'reward_gateway_graphql_operations_total', op('Viewer', 'query', 'ok'))).toBe(2);
    expect(valueOf(samples, 'reward_gateway_graphql_operations_total', op('Funds', 'query', 'error'))).toBe(1);
    expect(valueOf(samples, 'reward_gateway_graphql_operations_total', op('anonymous', 'query', 'ok'))).toBe(1);
    expect(valueOf(samples, 'reward_gateway_graphql_operations_total', op('Three', 'query', 'ok'))).toBe(1);
    // Refused by validation and by the parser: counted, never executed, so never timed.
    expect(valueOf(samples, 'reward_gateway_graphql_operations_total', op('Bad', 'query', 'error'))).toBe(1);
    expect(valueOf(samples, 'reward_gateway_graphql_operations_total', op('unknown', 'unknown', 'error'))).toBe(1);
    expect(valueOf(samples, 'reward_gateway_graphql_operation_duration_seconds_count', op('Viewer', 'query', 'ok'))).toBe(2);
    expect(valueOf(samples, 'reward_gateway_graphql_operation_duration_seconds_count', op('Funds', 'query', 'error'))).toBe(1);
    expect(valueOf(samples, 'reward_gateway_graphql_operation_duration_seconds_count', op('Bad', 'query', 'error'))).toBeUndefined();
    expect(valueOf(samples, 'reward_gateway_graphql_operation_duration_seconds_bucket', { ...op('Viewer', 'query', 'ok'), le: '+Inf' })).toBe(2);

    const call = (route: string, status: string, attempts: string, outcome: string) => ({ route, status, attempts, outcome });
    expect(valueOf(samples, 'reward_gateway_upstream_requests_total', call('GET /ping', '200', '1', 'ok'))).toBe(2);
    // Four attempts (set above): all four met the 503.
    expect(valueOf(samples, 'reward_gateway_upstream_requests_total', call('GET /funds', '503', '4', 'error'))).toBe(1);
    expect(valueOf(samples, 'reward_gateway_upstream_requests_total', call('GET /regions', '200', '2', 'ok'))).toBe(1);
    // An unknown order is a 404 the client answers as null: a successful call.
    expect(valueOf(samples, 'reward_gateway_upstream_requests_total', call('GET /campaign/:id', '404', '1', 'ok'))).toBe(3);
    expect(valueOf(samples, 'reward_gateway_upstream_retries_total', { route: 'GET /funds' })).toBe(3);
    expect(valueOf(samples, 'reward_gateway_upstream_retries_total', { route: 'GET /regions' })).toBe(1);
    expect(valueOf(samples, 'reward_gateway_upstream_retries_total', { route: 'GET /ping' })).toBe(0);
    expect(valueOf(samples, 'reward_gateway_upstream_request_duration_seconds_count', { route: 'GET /funds', outcome: 'error' })).toBe(1);

    // The three refs of one field went out as one batch of three.
    expect(valueOf(samples, 'reward_gateway_loader_batch_size_count', { loader: 'campaign' })).toBe(1);
    expect(valueOf(samples, 'reward_gateway_loader_batch_size_sum', { loader: 'campaign' })).toBe(3);
    expect(valueOf(samples, 'reward_gateway_loader_batch_size_bucket', { loader: 'campaign', le: '2' })).toBe(0);
    expect(valueOf(samples, 'reward_gateway_loader_batch_size_bucket', { loader: 'campaign', le: '3' })).toBe(1);

    // Node.js process defaults, under their usual names.
    expect(valueOf(samples, 'process_cpu_user_seconds_total')).toEqual(expect.any(Number));
    expect(valueOf(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('shows active subscriptions, pollers, polls and poll errors of the live hub', async ({ gateway: gw }) => {
    const url = await gw.listen();
    // The first poll fails (all its attempts meet the 503), the next one is the baseline.
    await gw.sandbox.control.fault({ route: 'GET /funds', status: 503, rate: 1, count: 4 });
    const pollError = next(gw, 'onPollError');
    const poll = next(gw, 'onPoll');
    const subscription = new AbortController();
    const stream = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription Balances { fundsChanged { funds { balances { currency } } } }' }),
      signal: subscription.signal,
    });
    expect(stream.status).toBe(200);
    expect(await pollError).toMatchObject({ key: 'funds', consecutiveFailures: 1 });
    await poll;

    let { samples } = await scrape(url);
    expect(valueOf(samples, 'reward_gateway_subscriptions_active')).toBe(1);
    expect(valueOf(samples, 'reward_gateway_live_pollers')).toBe(1);
    expect(valueOf(samples, 'reward_gateway_live_poll_errors_total', { feed: 'funds' })).toBe(1);
    expect(valueOf(samples, 'reward_gateway_live_polls_total', { feed: 'funds' })).toBeGreaterThanOrEqual(1);
    expect(
      valueOf(samples, 'reward_gateway_graphql_operations_total', { operation_name: 'Balances', operation_type: 'subscription', outcome: 'ok' }),
    ).toBe(1);

    const stopped = next(gw, 'onPollerStop');
    subscription.abort();
    await stopped;
    ({ samples } = await scrape(url));
    expect(valueOf(samples, 'reward_gateway_subscriptions_active')).toBe(0);
    expect(valueOf(samples, 'reward_gateway_live_pollers')).toBe(0);
  });

  it('keeps each gateway’s series to itself', async ({ gatewayWith }) => {
    const other = await gatewayWith({ listen: true });
    const { samples } = await scrape(other.url);
    expect(samples.filter((s) => s.name === 'reward_gateway_graphql_operations_total')).toEqual([]);
    expect(samples.filter((s) => s.name === 'reward_gateway_upstream_requests_total')).toEqual([]);
  });
});

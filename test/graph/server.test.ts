import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ env: { READY_CACHE_MS: '0' } });
});
afterAll(async () => {
  await gw?.close();
});

describe('server endpoints', () => {
  it('/health answers without touching the upstream', async () => {
    await gw.upstreamDelta();
    const res = await fetch(`${gw.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(await gw.upstreamDelta()).toEqual({});
  });

  it('/ready follows the upstream', async () => {
    const ok = await fetch(`${gw.url}/ready`);
    expect(ok.status).toBe(200);
    await gw.sandbox.control.fault({ route: 'GET /ping', status: 503, rate: 1 });
    const down = await fetch(`${gw.url}/ready`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'unavailable' });
    await gw.sandbox.control.clearFaults();
  });

  it('serves GraphiQL with its assets inlined (works offline)', async () => {
    const res = await fetch(`${gw.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('reward-gateway');
    expect(html).not.toMatch(/<script[^>]+src=["']?https?:/);
    expect(html).not.toMatch(/<link[^>]+href=["']?https?:\/\/unpkg/);
  });
});

import { describe, expect } from 'vitest';
import { testWith } from '../support/test.js';

// Lifetime: the file. The file's gateway listening: /health is answered outside yoga.
const it = testWith({ env: { READY_CACHE_MS: '0' } }).extend('url', { scope: 'file' }, ({ gateway }) => gateway.listen());

describe('server endpoints', () => {
  it('/health answers without touching the upstream', async ({ gateway, url }) => {
    await gateway.upstreamDelta();
    const res = await fetch(`${url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(await gateway.upstreamDelta()).toEqual({});
  });

  it('/ready follows the upstream', async ({ sandbox, url }) => {
    const ok = await fetch(`${url}/ready`);
    expect(ok.status).toBe(200);
    await sandbox.control.fault({ route: 'GET /ping', status: 503, rate: 1 });
    const down = await fetch(`${url}/ready`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'unavailable' });
    await sandbox.control.clearFaults();
  });

  it('serves GraphiQL with its assets inlined (works offline)', async ({ url }) => {
    const res = await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('reward-gateway');
    expect(html).not.toMatch(/<script[^>]+src=["']?https?:/);
    expect(html).not.toMatch(/<link[^>]+href=["']?https?:\/\/unpkg/);
  });
});

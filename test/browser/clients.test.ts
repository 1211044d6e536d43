import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

// What a page can do with no library, in headless Chromium (Debian's `chromium`, as graphiql.test.ts): a browser
// EventSource (which cannot send a header) subscribing over SSE in keyless development on loopback, and a
// @defer answer read part by part from a multipart/mixed stream. Skipped without Chromium outside CI, like
// graphiql.test.ts.

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);

describe.runIf(available)('browser clients in Chromium', { timeout: 120_000 }, () => {
  let gw: TestGateway;
  let context: BrowserContext;
  let page: Page;
  let profile: string;

  beforeAll(async () => {
    gw = await startTestGateway({ env: { POLL_INTERVAL_MS: '100', POLL_INTERVAL_FLOOR_MS: '10' } });
    profile = mkdtempSync(join(tmpdir(), 'reward-gateway-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = context.pages()[0] ?? (await context.newPage());
    // A page of the gateway's own origin, as a tool served from localhost would be.
    await page.goto(`${gw.url}/health`);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await gw?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('an EventSource gets subscription events (keyless development, no custom header)', async () => {
    const query = 'subscription { fundsChanged { funds { balances { currency availableInCents } } } }';
    const received = page.evaluate(
      (q) =>
        new Promise<string>((resolve, reject) => {
          const source = new EventSource(`/graphql?query=${encodeURIComponent(q)}`);
          source.addEventListener('next', (event) => {
            source.close();
            resolve((event as MessageEvent<string>).data);
          });
          source.onerror = () => reject(new Error('EventSource failed'));
        }),
      query,
    );
    let data: string | undefined;
    for (let i = 0; i < 50 && !data; i++) {
      data = await Promise.race([received, new Promise<undefined>((resolve) => setTimeout(resolve, 200))]);
      if (!data) await gw.sandbox.control.topUp('USD', 100);
    }
    expect(JSON.parse(data!).data.fundsChanged.funds.balances.length).toBeGreaterThan(0);
  });

  it('reads a @defer answer part by part from multipart/mixed', async () => {
    const query = '{ viewer { username } ... @defer(label: "money") { funds { balances { currency } } } }';
    const parts = await page.evaluate(async (q) => {
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'multipart/mixed' },
        body: JSON.stringify({ query: q }),
      });
      const boundary = /boundary="?([^";]+)"?/.exec(res.headers.get('content-type') ?? '')?.[1] ?? '-';
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      const bodies: unknown[] = [];
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        const chunks = buffer.split(`--${boundary}`);
        buffer = chunks.pop()!;
        for (const chunk of chunks) {
          const body = chunk.slice(chunk.indexOf('\r\n\r\n') + 4).trim();
          if (body.startsWith('{')) bodies.push(JSON.parse(body));
        }
      }
      return bodies as { data?: any; incremental?: { label: string; data: any }[]; hasNext: boolean }[];
    }, query);
    expect(parts[0]!.data.viewer.username).toBeTruthy();
    expect(parts[0]!.data.funds).toBeUndefined();
    expect(parts[0]!.hasNext).toBe(true);
    const money = parts.flatMap((p) => p.incremental ?? []).find((i) => i.label === 'money');
    expect(money!.data.funds.balances.length).toBeGreaterThan(0);
  });
});

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

// What a browser does with the gateway, in headless Chromium (Debian's `chromium` package, never a downloaded
// browser). GraphiQL as a newcomer uses it: load the page, run a query, run a subscription, redeem the gift through
// the sandbox control API and see the event arrive in the result pane; and no request of the page may leave the
// gateway's host. What a page can do with no library: a browser EventSource (which cannot send a header) subscribing
// over SSE in keyless development on loopback, and a @defer answer read part by part from a multipart/mixed stream.
// One browser and one gateway for both: a Chromium start and stop is ~4 CPU-s.
// Without Chromium a developer's run skips this file with the reason; under CI=true it fails instead.

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
if (!available && !inCi) {
  console.warn(`test/browser/chromium.test.ts skipped: ${CHROMIUM} not found (apt-get install chromium; .ci/run does).`);
}

describe.runIf(!available && inCi)('browser test under CI', () => {
  it('needs Chromium', () => {
    throw new Error(`${CHROMIUM} not found: CI must install Debian's chromium package (see .ci/run)`);
  });
});

describe.runIf(available)('in Chromium', { timeout: 120_000 }, () => {
  let gw: TestGateway;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  /** Every URL the GraphiQL page asked for, HTTP and WebSocket (its tests run first). */
  const requested: string[] = [];

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
    context.on('request', (request) => requested.push(request.url()));
    page = context.pages()[0] ?? (await context.newPage());
    page.on('websocket', (socket) => requested.push(socket.url()));
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await gw?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  describe('GraphiQL', () => {
    /** Opens GraphiQL with `query` in the editor (GraphiQL reads ?query=) and presses the run button. */
    async function run(query: string): Promise<void> {
      await page.goto(`${gw.url}/graphql?query=${encodeURIComponent(query)}`);
      await page.locator('.graphiql-execute-button').click({ timeout: 60_000 });
    }

    const resultPane = () => page.locator('.graphiql-response');

    it('runs a query and shows its result', async () => {
      await run('{ viewer { username } funds { balances { currency } } }');
      await expect.poll(() => resultPane().innerText(), { timeout: 60_000 }).toContain('username');
      expect(await resultPane().innerText()).toContain('USD');
    });

    it('runs a subscription and shows the redemption made through the sandbox control API', async () => {
      const id = `browser-${Date.now()}`;
      const created = await gw.gql(`mutation {
        createCampaign(input: { id: "${id}", priceInCents: 1000, reward: { brand: "sbxcoffeeus" },
          contacts: [{ email: "ada@example.com" }], subject: "Thanks", message: "Thanks" }) {
          __typename ... on CreateCampaignPayload { campaign { gifts { edges { node { uuid } } } } }
        }
      }`);
      const uuid = created.body.data.createCampaign.campaign.gifts.edges[0].node.uuid as string;

      // The redemption must come after the subscription's poller has taken its first look at the order.
      const polled = new Promise<void>((resolve) => {
        const stop = gw.gateway.live.listen({
          onPoll: () => {
            if (gw.gateway.live.stats().subscribers > 0) {
              stop();
              resolve();
            }
          },
        });
      });
      await run(`subscription { giftStatusChanged(campaign: "${id}") { gift { uuid status } previousStatus } }`);
      await polled;
      await gw.sandbox.control.redeem(uuid);

      await expect.poll(() => resultPane().innerText(), { timeout: 60_000 }).toContain('REDEEMED');
      expect(await resultPane().innerText()).toContain(uuid);
    });

    it('sent no request anywhere but the gateway', () => {
      const gatewayHost = new URL(gw.url).host;
      expect(requested.length).toBeGreaterThan(0);
      const elsewhere = requested.filter((url) => {
        if (url.startsWith('data:')) return false;
        const { host } = new URL(url.startsWith('blob:') ? url.slice('blob:'.length) : url);
        return host !== gatewayHost;
      });
      expect(elsewhere).toEqual([]);
    });
  });

  describe('browser clients', () => {
    // A page of the gateway's own origin, as a tool served from localhost would be.
    beforeAll(async () => {
      await page.goto(`${gw.url}/health`);
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
});

import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/ops/logger.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { configuredSecrets, createRedactor } from '../../src/redaction/redaction.js';
import { createGateway, type Gateway } from '../../src/app.js';
import { upstreamClientFromConfig } from '../../src/upstream/from-config.js';
import type { UpstreamClient } from '../../src/upstream/types.js';
import { createDirectLinkOrder, createEmailOrder } from './fixtures.js';
import { TEST_ENV } from './gateway.js';
import { startTestSandbox, type FaultRule, type TestSandbox } from './sandbox.js';

// Two gateways in front of one sandbox, alike but for how they execute: one runs every document interpreted
// (graphql-js, COMPILE_AFTER_RUNS=never), the other compiled (graphql-jit) from its first execution
// (COMPILE_AFTER_RUNS=0). Requests go in-process through yoga.fetch: no sockets between test and gateway.

export interface Request {
  query: string;
  variables?: unknown;
  operationName?: string;
}

export interface Answer {
  status: number;
  contentType: string | null;
  text: string;
  /** Requests the sandbox received for this operation, per route. */
  upstream: Record<string, number>;
}

export interface Side {
  gateway: Gateway;
  /** Log lines (debug level): the compiled side says which documents it compiled. */
  logs: string[];
}

/** Orders every run starts from, created through the sandbox's REST API under fixed caller ids. */
export interface Fixtures {
  email: { id: string; uuid: string };
  links: { id: string; uuid: string };
  /** A reward of the email order. */
  giftUuid: string;
}

export interface Differential {
  sandbox: TestSandbox;
  interpreted: Side;
  compiled: Side;
  /** The fixtures of the shared sandbox state reads run against. */
  fixtures: Fixtures;
  /** Both sides against the same sandbox state: for operations that change nothing upstream. */
  read(request: (f: Fixtures) => Request): Promise<[Answer, Answer]>;
  /**
   * Each side against the sandbox as the other found it: reset to the fixtures alone after anything that wrote
   * to it, so a create is new (not `replayed`) on both and balances match. The fixtures are made again after
   * each reset, under new uuids.
   */
  write(request: (f: Fixtures) => Request): Promise<[Answer, Answer]>;
  /** Makes the sandbox fail as the rule says, for both sides, until clearFaults (kept across resets). */
  fault(rule: FaultRule): Promise<void>;
  clearFaults(): Promise<void>;
  close(): Promise<void>;
}

interface RunningSide extends Side {
  client: UpstreamClient;
}

function startSide(sandbox: TestSandbox, compileAfterRuns: string): RunningSide {
  // Two attempts per upstream call: the failure cases fail the same way, only sooner.
  const config = loadConfig({
    ...TEST_ENV,
    LOG_LEVEL: 'debug',
    UPSTREAM_RETRY_ATTEMPTS: '2',
    // Every call failing with 429 would slow both sides to the adaptive limit's floor; compared here is the answers.
    UPSTREAM_ADAPTIVE_LIMIT: 'false',
    COMPILE_AFTER_RUNS: compileAfterRuns,
  });
  const logs: string[] = [];
  const redactor = createRedactor([sandbox.sandbox.token, ...configuredSecrets(config)]);
  const logger = createLogger({
    level: 'debug',
    redactor,
    destination: { write: (line: string) => void logs.push(line) },
  });
  const metrics = createMetrics();
  const client = upstreamClientFromConfig(
    config,
    { baseUrl: sandbox.sandbox.baseUrl, token: sandbox.sandbox.token },
    { onCall: metrics.upstreamCall, logger, redact: redactor.redact },
  );
  return { gateway: createGateway({ config, client, logger, metrics, redactor }), client, logs };
}

async function makeFixtures(sandbox: TestSandbox): Promise<Fixtures> {
  const email = await createEmailOrder(sandbox, { id: 'differential-email', recipients: 2, brandCodes: ['sbxcoffeeus', 'sbxbooksus'] });
  const links = await createDirectLinkOrder(sandbox, { id: 'differential-links', linkCount: 2 });
  const gifts = await sandbox.api('GET', `/gifts?campaign_id=${email.id}`);
  return { email, links, giftUuid: gifts.body.gifts[0].uuid };
}

export async function startDifferential(): Promise<Differential> {
  const sandbox = await startTestSandbox();
  const interpreted = startSide(sandbox, 'never');
  const compiled = startSide(sandbox, '0');
  let fixtures = await makeFixtures(sandbox);
  let seen: Record<string, number> = {};

  async function upstreamDelta(): Promise<Record<string, number>> {
    const { requests } = await sandbox.control.stats();
    const delta: Record<string, number> = {};
    for (const [route, n] of Object.entries(requests)) if (n !== (seen[route] ?? 0)) delta[route] = n - (seen[route] ?? 0);
    seen = requests;
    return delta;
  }

  // Whether the sandbox may have served requests `seen` does not hold (the fixtures made after a reset): then the
  // next send takes a delta first, so its own is only its requests. Otherwise the last send's delta left `seen`
  // current, and asking the control API again (the whole stats snapshot, twice a request) was a tenth of this
  // corpus's CPU.
  let seenStale = true;
  async function send(side: Side, request: Request): Promise<Answer> {
    if (seenStale) await upstreamDelta();
    seenStale = false;
    const res = await side.gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(request),
    });
    const text = await res.text();
    return { status: res.status, contentType: res.headers.get('content-type'), text, upstream: await upstreamDelta() };
  }

  // Whether the sandbox holds more than the fixtures: a write reached it since its last reset.
  let written = false;
  const faults: FaultRule[] = [];
  async function sendWrite(side: Side, request: (f: Fixtures) => Request): Promise<Answer> {
    if (written) {
      await sandbox.control.reset();
      fixtures = await makeFixtures(sandbox);
      for (const rule of faults) await sandbox.control.fault(rule);
      seen = {};
      seenStale = true;
    }
    const answer = await send(side, request(fixtures));
    written = Object.keys(answer.upstream).some((route) => !route.startsWith('GET '));
    return answer;
  }

  return {
    sandbox,
    interpreted,
    compiled,
    get fixtures() {
      return fixtures;
    },
    read: async (request) => [await send(interpreted, request(fixtures)), await send(compiled, request(fixtures))],
    write: async (request) => [await sendWrite(interpreted, request), await sendWrite(compiled, request)],
    async fault(rule) {
      faults.push(rule);
      await sandbox.control.fault(rule);
    },
    async clearFaults() {
      faults.length = 0;
      await sandbox.control.clearFaults();
    },
    async close() {
      for (const side of [interpreted, compiled]) {
        await side.gateway.stop(1_000);
        await side.client.close();
      }
      await sandbox.close();
    },
  };
}

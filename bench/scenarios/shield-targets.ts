import { randomBytes } from 'node:crypto';
import { sandboxClient, type SandboxClient } from '../clients.js';
import { sleep } from '../context.js';
import { startSandboxProcess, type SandboxProcess } from '../processes.js';
import type { Settings } from '../settings.js';
import {
  AUTH_HEADERS,
  BENCH_KEY,
  compiledEntry,
  PEERS,
  productionNodeFlags,
  startGatewayTarget,
  startPeer,
  TARGET_LABELS,
  type Target,
  type TargetName,
} from '../targets.js';
import { createNestedOrders, NESTED } from './nested-read.js';

// What the outage and capacity scenarios share (issue 24): every target with a sandbox of its own (a fault
// there touches no other target, and its counts are the target's alone), all run at the same time (these
// scenarios count answers and upstream requests, not CPU); viewers reloading the nested read's 10-order view
// once a second, and for the gateway one createCampaign a second (the peers have no mutation). The gateway
// runs as production starts it, with its read cache at its default (CACHE_TTL_MS 5 s) and every shield
// setting at its default: no fixed budget, breaker and retries as shipped.

export const CREATE = `mutation Create($input: CreateCampaignInput!) {
  createCampaign(input: $input) { __typename ... on CreateCampaignPayload { campaign { id } } }
}`;

export interface ShieldTarget {
  target: Target;
  sandbox: SandboxProcess;
  upstream: SandboxClient;
  refs: string[];
  writes: boolean;
}

/** The gateway (compiled, else through tsx) and every peer BENCH_TARGETS names, each on a sandbox of its own. */
export async function startShieldTargets(settings: Settings, log: (m: string) => void, scenario: string): Promise<ShieldTarget[]> {
  const wanted = new Set<TargetName>(settings.BENCH_TARGETS);
  const started: ShieldTarget[] = [];
  const entry = wanted.has('gateway-compiled') ? compiledEntry(settings.BENCH_COMPILED_ENTRY, log) : null;
  const starters: [TargetName, (sandbox: SandboxProcess) => Promise<Target>][] = [];
  const gatewayEnv = {
    CACHE_TTL_MS: '5000',
    GATEWAY_API_KEYS: JSON.stringify([{ name: 'bench', key: BENCH_KEY, scopes: ['rewards:read', 'rewards:write', 'funds:read'] }]),
  };
  if (entry) starters.push(['gateway-compiled', (s) => startGatewayTarget('gateway-compiled', entry, s, productionNodeFlags(), gatewayEnv)]);
  else if (wanted.has('gateway-tsx')) starters.push(['gateway-tsx', (s) => startGatewayTarget('gateway-tsx', 'src/main.ts', s, [], gatewayEnv)]);
  for (const peer of PEERS) if (wanted.has(peer)) starters.push([peer, (s) => startPeer(peer, s)]);
  try {
    for (const [name, start] of starters) {
      const sandbox = await startSandboxProcess({
        latencyMs: settings.BENCH_LATENCY_MS,
        token: `bench-${randomBytes(12).toString('hex')}`,
        balanceCents: 2_000_000_000,
      });
      const upstream = sandboxClient(sandbox);
      try {
        const refs = await createNestedOrders({ upstream }, `bench-${scenario}-${name}`);
        const target = await start(sandbox);
        // Warm: brands in its catalogue, the view once.
        await view(target.url, refs);
        started.push({ target, sandbox, upstream, refs, writes: name.startsWith('gateway') });
        log(`${scenario}: ${TARGET_LABELS[name]} up on a sandbox of its own`);
      } catch (error) {
        await sandbox.stop();
        throw error;
      }
    }
  } catch (error) {
    await stopShieldTargets(started);
    throw error;
  }
  return started;
}

export async function stopShieldTargets(targets: ShieldTarget[]): Promise<void> {
  await Promise.all(targets.map(async (t) => (await t.target.stop(), await t.sandbox.stop())));
}

export interface ViewAnswer {
  /** Every order with all its rewards, no errors. */
  full: boolean;
  /** The gateway said some of it came from its cache past the TTL (`extensions.stale`). */
  stale: boolean;
}

export async function view(url: string, refs: string[]): Promise<ViewAnswer> {
  try {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...AUTH_HEADERS },
      body: JSON.stringify({ query: NESTED, variables: { refs } }),
      signal: AbortSignal.timeout(30_000),
    });
    const json = (await res.json()) as { data?: any; errors?: unknown[]; extensions?: { stale?: boolean } };
    const campaigns = (json.data?.campaigns ?? []) as ({ gifts?: { edges?: unknown[] } } | null)[];
    const full = res.status === 200 && !json.errors && campaigns.length === refs.length && campaigns.every((c) => c?.gifts?.edges?.length === 20);
    return { full, stale: json.extensions?.stale === true };
  } catch {
    return { full: false, stale: false };
  }
}

/** `viewers` reloading the view once a second, spread over the second, until `until()`; each answer to `record`. */
export async function viewers(
  url: string,
  refs: string[],
  count: number,
  until: () => boolean,
  record: (answer: ViewAnswer, sentAt: number) => void,
) {
  await Promise.all(
    Array.from({ length: count }, async (_, v) => {
      await sleep((1000 * v) / count);
      while (!until()) {
        const sentAt = Date.now();
        record(await view(url, refs), sentAt);
        await sleep(Math.max(0, sentAt + 1000 - Date.now()));
      }
    }),
  );
}

/** One createCampaign a second until `until()`; each answer's __typename (or the error code) to `record`. */
export async function writer(url: string, prefix: string, until: () => boolean, record: (typename: string, sentAt: number) => void) {
  for (let i = 0; !until(); i++) {
    const sentAt = Date.now();
    const input = {
      id: `${prefix}-${i}`,
      priceInCents: 500,
      reward: { brand: 'sbxcoffeeus' },
      contacts: [{ email: 'ada@example.com' }],
      subject: 'Thanks',
      message: 'For your help.',
    };
    try {
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...AUTH_HEADERS },
        body: JSON.stringify({ query: CREATE, variables: { input } }),
        signal: AbortSignal.timeout(30_000),
      });
      const json = (await res.json()) as { data?: { createCampaign?: { __typename: string } }; errors?: { extensions?: { code?: string } }[] };
      record(json.data?.createCampaign?.__typename ?? json.errors?.[0]?.extensions?.code ?? `HTTP ${res.status}`, sentAt);
    } catch {
      record('transport error', sentAt);
    }
    await sleep(Math.max(0, sentAt + 1000 - Date.now()));
  }
}

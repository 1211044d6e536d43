import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { sandboxClient } from './clients.js';
import { tallyGcLines, type GcTally } from './gc-trace.js';
import { freePort, ROOT, startSandboxProcess } from './processes.js';
import { createNestedOrders, NESTED } from './scenarios/nested-read.js';
import { spread } from './stats.js';
import { productionNodeFlags } from './targets.js';

// What a nested read leaves to the old generation once V8 has made one full collection under load, layer by layer,
// each layer in a process of its own started with start:prod's flags and `--trace-gc-nvp`: the reads (WORKERS at
// once, after a warm-up) run in that same process, with no HTTP hop unless the mode has one, so a mode's figures
// are its own layers' and the load's. After the warm-up the process makes one full collection (V8's `gc()`, as V8
// makes one on its own under load; PROMOTION_GC=none leaves it out), then READS reads are counted from V8's lines:
// scavenges, full collections, and per read the KB allocated, promoted (alive at two scavenges in a row) and
// surviving one scavenge. Why the full collection: before the registries of src/shared/registry.ts, the gateway
// promoted 6 KB a read in some runs and 165 in others of the same build, and 100–220 in every run after one
// (bench/RESULTS.md 0p).
// Modes, from the wire up:
//   undici      the peers' upstream path: an undici Pool, `request` and `body.json()`;
//   transport   the gateway's transport (src/upstream/transport.ts) alone;
//   client      the gateway's upstream client (retry, bulkhead, breaker, budget, normalisation);
//   gateway     the whole gateway in process, each read through `yoga.fetch` (no HTTP);
//   gateway-http the gateway listening on a loopback port, each read over HTTP from an undici Pool;
//   peer        the yoga + graphql-jit peer (bench/peers/yoga-jit.mjs) listening likewise.
// A read is the bench's nested read (10 orders, 20 rewards each, brands): for the upstream modes its 10 order
// reads at once, then its 10 reward pages at once.
// Usage: node --import tsx bench/promotion.ts [ROUNDS=2] [READS=600]
//   (PROMOTION_MODES, default all; PROMOTION_WORKERS, default 10; PROMOTION_FLAGS: more node flags;
//    PROMOTION_GC=none; PROMOTION_QUERY: another query for the GraphQL modes (it may use `$refs`, the orders' refs);
//    PROMOTION_ENV: a JSON object of gateway settings on top of the comparison's;
//    PROMOTION_CLIENT: a JSON object of createUpstreamClient options for the `client` mode; PROMOTION_SITES=N: the
//    N sites that allocated most of what was promoted, from V8's sampling heap profiler
//    (bench/hooks/allocation-sites.mjs, as `SITES=promoted` of bench/sites.ts), which itself moves the figures)

const MODES = ['undici', 'transport', 'client', 'gateway', 'gateway-http', 'peer'] as const;
type Mode = (typeof MODES)[number];
const WARM_UP = 50;

interface ChildArgs {
  mode: Mode;
  baseUrl: string;
  token: string;
  refs: string[];
  reads: number;
  workers: number;
  forceGc: boolean;
  /** PROMOTION_SITES: how many allocation sites to list (0: the sampling profiler is not loaded). */
  sites: number;
}

async function readerFor({ mode, baseUrl, token, refs }: ChildArgs): Promise<() => Promise<unknown>> {
  const { Pool } = await import('undici');
  const upstreamReads = (get: (route: string, path: string) => Promise<{ uuid: string }>) => async () => {
    const campaigns = await Promise.all(refs.map((ref) => get('GET /campaign/:id', `/campaign/${encodeURIComponent(ref)}`)));
    return Promise.all(campaigns.map((c) => get('GET /gifts', `/gifts?campaign_uuid=${c.uuid}&limit=21`)));
  };
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/$/, '');
  if (mode === 'undici') {
    const pool = new Pool(base.origin, { connections: 64 });
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
    return upstreamReads(async (_route, path) => {
      const res = await pool.request({ method: 'GET', path: prefix + path, headers });
      const json = (await res.body.json()) as { campaign?: { uuid: string } };
      return json.campaign ?? (json as { uuid: string });
    });
  }
  if (mode === 'transport') {
    const { createTransport } = await import('../src/upstream/transport.js');
    const { resolveConfig } = await import('../src/upstream/config.js');
    const transport = createTransport(resolveConfig({ baseUrl, token }), (text) => text);
    return upstreamReads(async (route, path) => {
      const res = await transport.send({ method: 'GET', route, path } as never, undefined, 10_000, {}, undefined, 1, () => {});
      const json = res.json as { campaign?: { uuid: string } };
      return json.campaign ?? (json as { uuid: string });
    });
  }
  if (mode === 'client') {
    const { createUpstreamClient } = await import('../src/upstream/client.js');
    const client = createUpstreamClient({ baseUrl, token, ...(JSON.parse(process.env.PROMOTION_CLIENT ?? '{}') as object) });
    return async () => {
      const campaigns = await Promise.all(refs.map((ref) => client.getCampaign(ref)));
      return Promise.all(campaigns.map((c) => client.listGifts({ campaignUuid: c!.uuid, limit: 20 })));
    };
  }
  const body = JSON.stringify({ query: process.env.PROMOTION_QUERY ?? NESTED, variables: { refs } });
  const checked = (text: string) => {
    if (!text.startsWith('{"data":{') || text.includes('"errors"')) throw new Error(`${mode}: not a complete answer: ${text.slice(0, 200)}`);
    return text;
  };
  let url: string;
  let headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (mode === 'peer') {
    const port = await freePort();
    Object.assign(process.env, { PEER_PORT: String(port), REWARD_API_URL: baseUrl, REWARD_API_TOKEN: token, NODE_ENV: 'production' });
    const listening = new Promise<void>((resolve) => {
      const write = process.stdout.write.bind(process.stdout);
      process.stdout.write = ((chunk: string) => {
        if (String(chunk).includes('listening on')) resolve();
        return write(chunk);
      }) as typeof process.stdout.write;
    });
    await import(new URL('./peers/yoga-jit.mjs', import.meta.url).href);
    await listening;
    url = `http://127.0.0.1:${port}`;
  } else {
    const key = `gwk_bench_${randomBytes(16).toString('hex')}`;
    headers = { ...headers, authorization: `Bearer ${key}` };
    Object.assign(process.env, {
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      REWARD_API_URL: baseUrl,
      REWARD_API_TOKEN: token,
      GATEWAY_API_KEYS: JSON.stringify([{ name: 'bench', key, scopes: ['rewards:read', 'funds:read'] }]),
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      LOG_LEVEL: 'warn',
      CACHE_TTL_MS: '0',
      ...(JSON.parse(process.env.PROMOTION_ENV ?? '{}') as Record<string, string>),
    });
    const [
      { loadConfig },
      { createGateway },
      { upstreamClientFromConfig },
      { createRedactor, configuredSecrets },
      { createLogger },
      { createMetrics },
    ] = await Promise.all([
      import('../src/config.js'),
      import('../src/app.js'),
      import('../src/upstream/from-config.js'),
      import('../src/redaction/redaction.js'),
      import('../src/ops/logger.js'),
      import('../src/ops/metrics.js'),
    ]);
    const config = loadConfig();
    const redactor = createRedactor(configuredSecrets(config));
    const logger = createLogger({ level: 'warn', redactor });
    const metrics = createMetrics();
    const client = upstreamClientFromConfig(config, { baseUrl, token }, { onCall: metrics.upstreamCall, logger, redact: redactor.redact });
    const gateway = createGateway({ config, client, logger, metrics, redactor });
    if (mode === 'gateway') {
      return async () => checked(await (await gateway.yoga.fetch('http://localhost/graphql', { method: 'POST', headers, body })).text());
    }
    url = await gateway.start(0);
  }
  const pool = new Pool(url, { connections: 64 });
  return async () => checked(await (await pool.request({ method: 'POST', path: '/graphql', headers, body })).body.text());
}

async function child(args: ChildArgs): Promise<void> {
  const read = await readerFor(args);
  for (let i = 0; i < WARM_UP; i++) await read();
  await Promise.all(Array.from({ length: args.workers }, async () => read()));
  if (args.forceGc) (globalThis as { gc?: () => void }).gc!();
  // bench/hooks/allocation-sites.mjs (preloaded by the parent for PROMOTION_SITES) samples between these signals.
  if (args.sites) process.kill(process.pid, 'SIGWINCH');
  process.stdout.write('PROMOTION-START\n');
  let left = args.reads;
  await Promise.all(
    Array.from({ length: args.workers }, async () => {
      while (left-- > 0) await read();
    }),
  );
  process.stdout.write('PROMOTION-END\n');
  if (args.sites) {
    process.kill(process.pid, 'SIGUSR2');
    const file = join(tmpdir(), `sites-${process.pid}.json`);
    while (!existsSync(file)) await sleep(50);
  }
  process.exit(0);
}

type Figures = Pick<GcTally, 'scavenges' | 'fullGcs' | 'allocatedKb' | 'promotedKb' | 'survivedKb'>;

/** V8's lines between the markers, the sizes per read. */
function figuresOf(lines: string[], reads: number): Figures {
  const t = tallyGcLines(lines);
  return {
    scavenges: t.scavenges,
    fullGcs: t.fullGcs,
    allocatedKb: t.allocatedKb / reads,
    promotedKb: t.promotedKb / reads,
    survivedKb: t.survivedKb / reads,
  };
}

async function measure(args: ChildArgs, flags: string[]): Promise<Figures> {
  const { sites } = args;
  const hook = sites ? ['--import', `${pathToFileURL(join(ROOT, 'bench', 'hooks', 'allocation-sites.mjs')).href}?promoted`] : [];
  const proc = spawn(
    process.execPath,
    [...flags, ...hook, '--trace-gc-nvp', '--expose-gc', '--import', 'tsx', 'bench/promotion.ts', 'child', JSON.stringify(args)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => proc.on('exit', resolve));
  const [start, end] = [out.indexOf('PROMOTION-START'), out.indexOf('PROMOTION-END')];
  if (code !== 0 || start < 0 || end < 0) throw new Error(`${args.mode}: the measuring process exited ${code} before its reads were done`);
  if (sites) {
    // The sampling profiler's view: bytes no scavenge collected, by the site that allocated them (see bench/sites.ts).
    const file = join(tmpdir(), `sites-${proc.pid}.json`);
    const profile = JSON.parse(readFileSync(file, 'utf8')) as { sites: [string, number][] };
    rmSync(file);
    process.stderr.write(`[promotion] ${args.mode}, promoted by site (KB a read):\n`);
    for (const [site, bytes] of profile.sites.slice(0, sites))
      process.stderr.write(`  ${(bytes / 1024 / args.reads).toFixed(1).padStart(6)}  ${site}\n`);
  }
  return figuresOf(out.slice(start, end).split('\n'), args.reads);
}

if (process.argv[2] === 'child') {
  await child(JSON.parse(process.argv[3]!) as ChildArgs);
} else {
  const rounds = Number(process.argv[2] ?? 2);
  const reads = Number(process.argv[3] ?? 600);
  const modes = (process.env.PROMOTION_MODES?.split(',') ?? [...MODES]).map((m) => m.trim()) as Mode[];
  for (const m of modes) if (!MODES.includes(m)) throw new Error(`PROMOTION_MODES: "${m}" is not one of ${MODES.join(', ')}`);
  const flags = [...productionNodeFlags(), ...(process.env.PROMOTION_FLAGS?.split(/\s+/).filter(Boolean) ?? [])];
  const sites = Number(process.env.PROMOTION_SITES ?? 0);
  if (!Number.isInteger(sites) || sites < 0) throw new Error(`PROMOTION_SITES: "${process.env.PROMOTION_SITES}" is not a count of sites`);
  const sandbox = await startSandboxProcess({ latencyMs: 20, token: `promotion-${process.pid}`, balanceCents: 2_000_000_000 });
  try {
    const refs = await createNestedOrders({ upstream: sandboxClient(sandbox) }, `promotion-${Date.now()}`);
    const results = new Map<Mode, Figures[]>(modes.map((m) => [m, []]));
    for (let round = 1; round <= rounds; round++) {
      // Modes in a rotating order, so a busy moment of a shared machine does not always land on the same one.
      for (const mode of modes.map((_, i) => modes[(i + round - 1) % modes.length]!)) {
        const args = {
          mode,
          baseUrl: sandbox.baseUrl,
          token: sandbox.token,
          refs,
          reads,
          workers: Number(process.env.PROMOTION_WORKERS ?? 10),
          forceGc: process.env.PROMOTION_GC !== 'none',
          sites,
        };
        const figures = await measure(args, flags);
        results.get(mode)!.push(figures);
        process.stderr.write(`[promotion] round ${round} ${mode}: ${figures.promotedKb.toFixed(1)} KB promoted a read\n`);
      }
    }
    const of = (mode: Mode, key: keyof Figures, digits: number) =>
      spread(
        results.get(mode)!.map((f) => f[key]),
        digits,
      );
    console.log(
      `\n${rounds} rounds × ${reads} nested reads, ${process.env.PROMOTION_WORKERS ?? 10} at once, node ${flags.join(' ')}${process.env.PROMOTION_GC === 'none' ? '' : ', one full GC after the warm-up'}:\n`,
    );
    console.log(
      '| mode | scavenges per 100 reads | full GCs per 100 reads | KB allocated a read | KB promoted a read | KB surviving a scavenge a read |',
    );
    console.log('|---|---|---|---|---|---|');
    const per100 = (mode: Mode, key: 'scavenges' | 'fullGcs') =>
      spread(
        results.get(mode)!.map((f) => (f[key] * 100) / reads),
        1,
      );
    for (const mode of modes) {
      console.log(
        `| ${mode} | ${per100(mode, 'scavenges')} | ${per100(mode, 'fullGcs')} | ${of(mode, 'allocatedKb', 0)} | ${of(mode, 'promotedKb', 1)} | ${of(mode, 'survivedKb', 1)} |`,
      );
    }
  } finally {
    await sandbox.stop();
  }
}

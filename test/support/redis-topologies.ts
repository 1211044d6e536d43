import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// Redis as operators run it, started from redis-server and redis-cli only, for suites (and the bench) that need
// a failover: a primary with a replica watched by three sentinels, and a six-node Redis Cluster (three primaries
// with one replica each). Short timeouts keep a failover to a few seconds. Every process is started with no
// persistence in a temporary directory of its own, and `stop()` kills them all and removes the directory.
//
// What a replica is given to connect to each: `env` (REDIS_SENTINELS and REDIS_SENTINEL_MASTER, or
// REDIS_CLUSTER_NODES); `killPrimary(key)` SIGKILLs the primary holding a key of the gateway's (on a cluster,
// the primary of that key's slot), and says when a replica has taken its place.

const run = promisify(execFile);
const HOST = '127.0.0.1';
/** Sentinel's `down-after-milliseconds`: a primary silent this long is failed over. */
export const SENTINEL_DOWN_AFTER_MS = 1_000;
/** Redis Cluster's `cluster-node-timeout`: a primary silent this long is failed over. */
export const CLUSTER_NODE_TIMEOUT_MS = 1_500;

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', HOST, '-p', String(port), ...args]);
  return stdout;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

/**
 * A port from a range the system does not hand out to ephemeral sockets, at most 55535 so that a cluster node's
 * bus port (port + 10000) exists, with that bus port free too.
 */
async function nodePort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await portFree(port)) && (await portFree(port + 10_000))) {
      taken.add(port).add(port + 10_000);
      return port;
    }
  }
}

async function until(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Server {
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
}

function startServer(args: string[], port: number, dir: string): Promise<Server> {
  // Replicas sync at once (Redis waits 5 s by default for more replicas to share a diskless transfer).
  const options = ['--port', String(port), '--bind', HOST, '--dir', dir, '--save', '', '--appendonly', 'no', '--repl-diskless-sync-delay', '0'];
  const child = spawn('redis-server', [...args, ...options], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('Ready to accept connections') || out.includes('Sentinel ID is')) resolve({ port, child, exited });
    });
    void exited.then(() => reject(new Error(`redis-server on ${port} exited: ${out}`)));
  });
}

async function kill(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGKILL');
  await server.exited;
}

export interface RedisTopology {
  /** The environment a gateway replica is given to use it (besides REDIS_KEY_PREFIX). */
  env: Record<string, string>;
  /** host:port of the primary that holds `key` now (a key of the gateway's, e.g. `rg:{campaign:…}:lease`). */
  primaryOf(key: string): Promise<string>;
  /** Every primary's host:port (for counting commands: a replica's count repeats its primary's). */
  primaries(): Promise<string[]>;
  /** Connections subscribed to `channel` where it is served (PUBSUB NUMSUB, or SHARDNUMSUB on a cluster). */
  subscribers(channel: string): Promise<number>;
  /**
   * SIGKILLs the primary holding `key`; resolves once it is dead, with its address and `promoted`, which resolves
   * once a replica has been promoted in its place.
   */
  killPrimary(key: string): Promise<{ address: string; promoted: Promise<void> }>;
  stop(): Promise<void>;
}

/** A primary, one replica and three sentinels (quorum 2) monitoring it as `master`. */
export async function startSentinelTopology(master = 'rg-primary'): Promise<RedisTopology> {
  const dir = mkdtempSync(join(tmpdir(), 'rg-sentinel-'));
  const taken = new Set<number>();
  const servers: Server[] = [];
  const stop = async () => {
    await Promise.all(servers.map(kill));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const primary = await startServer([], await nodePort(taken), dir);
    servers.push(primary);
    const replica = await startServer(['--replicaof', HOST, String(primary.port)], await nodePort(taken), dir);
    servers.push(replica);
    await until(async () => (await cli(replica.port, 'INFO', 'replication')).includes('master_link_status:up'), 'the replica to sync');
    const sentinels: number[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await nodePort(taken);
      const file = join(dir, `sentinel-${port}.conf`);
      // Sentinel rewrites its configuration file as it learns the topology, so each has a file of its own.
      writeFileSync(
        file,
        [
          `sentinel monitor ${master} ${HOST} ${primary.port} 2`,
          `sentinel down-after-milliseconds ${master} ${SENTINEL_DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${master} 5000`,
          `sentinel parallel-syncs ${master} 1`,
          '',
        ].join('\n'),
      );
      servers.push(await startServer([file, '--sentinel'], port, dir));
      sentinels.push(port);
    }
    // A failover needs the sentinels to know of each other and of the replica (learned over a few seconds).
    await until(async () => {
      for (const port of sentinels) {
        const info = await cli(port, 'SENTINEL', 'MASTER', master);
        const field = (name: string) => Number(new RegExp(`^${name}\\n(\\d+)$`, 'm').exec(info)?.[1] ?? 0);
        if (field('num-slaves') < 1 || field('num-other-sentinels') < 2) return false;
      }
      return true;
    }, 'the sentinels to find each other and the replica');
    const primaryNow = async () => {
      const [host, port] = (await cli(sentinels[0]!, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', master)).trim().split('\n');
      return `${host}:${port}`;
    };
    return {
      env: { REDIS_SENTINELS: sentinels.map((p) => `${HOST}:${p}`).join(','), REDIS_SENTINEL_MASTER: master },
      primaryOf: () => primaryNow(),
      primaries: async () => [await primaryNow()],
      async subscribers(channel) {
        const port = Number((await primaryNow()).split(':')[1]);
        return Number((await cli(port, 'PUBSUB', 'NUMSUB', channel)).trim().split('\n')[1]);
      },
      async killPrimary() {
        const address = await primaryNow();
        const victim = servers.find((s) => `${HOST}:${s.port}` === address)!;
        await kill(victim);
        const promoted = until(async () => (await primaryNow()) !== address, 'the sentinels to promote the replica');
        return { address, promoted };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A six-node Redis Cluster: three primaries with one replica each, made with `redis-cli --cluster create`. */
export async function startClusterTopology(): Promise<RedisTopology> {
  const dir = mkdtempSync(join(tmpdir(), 'rg-cluster-'));
  const taken = new Set<number>();
  const servers: Server[] = [];
  const stop = async () => {
    await Promise.all(servers.map(kill));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ports = await Promise.all(Array.from({ length: 6 }, () => nodePort(taken)));
    servers.push(
      ...(await Promise.all(
        ports.map((port) =>
          startServer(
            ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', String(CLUSTER_NODE_TIMEOUT_MS)],
            port,
            dir,
          ),
        ),
      )),
    );
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `${HOST}:${p}`), '--cluster-replicas', '1', '--cluster-yes']);
    const live = () => servers.filter((s) => s.child.exitCode === null && s.child.signalCode === null);
    const settled = async () => {
      // Every node sees every slot served, and every replica is in sync (one that never synced is not promoted).
      for (const s of live()) {
        if (!(await cli(s.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
        const replication = await cli(s.port, 'INFO', 'replication');
        if (replication.includes('role:slave') && !replication.includes('master_link_status:up')) return false;
      }
      const shards = await slotOwners(live()[0]!.port);
      return shards.length === 3;
    };
    await until(settled, 'the cluster to settle');
    const primaryOf = async (key: string) => {
      const slot = Number((await cli(live()[0]!.port, 'CLUSTER', 'KEYSLOT', key)).trim());
      const owner = (await slotOwners(live()[0]!.port)).find((s) => s.from <= slot && slot <= s.to);
      if (!owner) throw new Error(`no primary serves slot ${slot}`);
      return owner.primary;
    };
    return {
      env: { REDIS_CLUSTER_NODES: ports.map((p) => `${HOST}:${p}`).join(',') },
      primaryOf,
      primaries: async () => [...new Set((await slotOwners(live()[0]!.port)).map((s) => s.primary))],
      async subscribers(channel) {
        const port = Number((await primaryOf(channel)).split(':')[1]);
        return Number((await cli(port, 'PUBSUB', 'SHARDNUMSUB', channel)).trim().split('\n')[1]);
      },
      async killPrimary(key) {
        const address = await primaryOf(key);
        const victim = servers.find((s) => `${HOST}:${s.port}` === address)!;
        await kill(victim);
        const promoted = until(async () => {
          if ((await primaryOf(key)) === address) return false;
          for (const s of live()) if (!(await cli(s.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
          return true;
        }, "the cluster to promote the dead primary's replica");
        return { address, promoted };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Slot ranges and the primary serving each, as a node sees them (CLUSTER SLOTS, read through redis-cli's raw output). */
async function slotOwners(port: number): Promise<{ from: number; to: number; primary: string }[]> {
  const { stdout } = await run('redis-cli', ['-h', HOST, '-p', String(port), '--json', 'CLUSTER', 'SLOTS']);
  const slots = JSON.parse(stdout) as [number, number, [string, number, ...unknown[]], ...unknown[]][];
  return slots.map(([from, to, [host, p]]) => ({ from, to, primary: `${host}:${p}` }));
}

// Where Redis is, in the three forms cluster mode accepts (exactly one of them set, config.ts), and how logs
// may name it.

export interface HostPort {
  host: string;
  port: number;
}

/** One of REDIS_URL, REDIS_SENTINELS (with REDIS_SENTINEL_MASTER) or REDIS_CLUSTER_NODES. */
export type RedisTarget =
  | { url: string }
  | { sentinels: HostPort[]; master: string; sentinelPassword?: string | undefined }
  | { clusterNodes: HostPort[] };

export interface RedisSettings {
  REDIS_URL?: string | undefined;
  REDIS_SENTINELS?: HostPort[] | undefined;
  REDIS_SENTINEL_MASTER?: string | undefined;
  REDIS_SENTINEL_PASSWORD?: string | undefined;
  REDIS_CLUSTER_NODES?: HostPort[] | undefined;
}

/** The form configured, or null: no Redis, one process with its state in memory. */
export function redisTarget(config: RedisSettings): RedisTarget | null {
  if (config.REDIS_URL) return { url: config.REDIS_URL };
  if (config.REDIS_SENTINELS && config.REDIS_SENTINEL_MASTER) {
    return { sentinels: config.REDIS_SENTINELS, master: config.REDIS_SENTINEL_MASTER, sentinelPassword: config.REDIS_SENTINEL_PASSWORD };
  }
  if (config.REDIS_CLUSTER_NODES) return { clusterNodes: config.REDIS_CLUSTER_NODES };
  return null;
}

/** Redis as logs may name it: hosts and ports, never credentials. */
export function redisHost(target: RedisTarget): string {
  const list = (nodes: HostPort[]) => nodes.map((n) => `${n.host}:${n.port}`).join(',');
  if ('url' in target) return new URL(target.url).host;
  if ('sentinels' in target) return `${target.master} via sentinels ${list(target.sentinels)}`;
  return `cluster ${list(target.clusterNodes)}`;
}

import { z } from 'zod';
import { configArea, documented, flag, positiveMs, type AreaSettings } from '../shared/config-area.js';
import type { HostPort } from './target.js';

// The cluster area's environment variables (Redis, shared by every replica), composed by src/config.ts. Redis
// comes in three forms, exactly one of which turns cluster mode on: one server (REDIS_URL), a primary with
// replicas behind Sentinel (REDIS_SENTINELS), or a Redis Cluster (REDIS_CLUSTER_NODES).

/** `host:port,host:port`: sentinels, or a cluster's seed nodes. */
const hostPorts = z.string().transform((text, ctx): HostPort[] => {
  const nodes: HostPort[] = [];
  for (const item of text.split(',').map((s) => s.trim())) {
    const match = /^([^\s:]+|\[[0-9a-fA-F:.]+\]):(\d{1,5})$/.exec(item);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65_535) {
      ctx.addIssue({ code: 'custom', message: `must be comma-separated host:port pairs ("${item}" is not one)` });
      return z.NEVER;
    }
    nodes.push({ host: match[1]!.replace(/^\[|\]$/g, ''), port });
  }
  return nodes;
});

const FORMS = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const;

export const clusterArea = configArea({
  title: 'Cluster mode (Redis)',
  variables: {
    REDIS_URL: documented(z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379' }).optional(), {
      description:
        'cluster mode on one Redis server: every replica shares leases, snapshots, event logs and limits there ([docs/cluster.md](docs/cluster.md)); `rediss://` for TLS',
      unsetMeans: 'unset: one replica, state in memory (unless REDIS_SENTINELS or REDIS_CLUSTER_NODES)',
    }),
    REDIS_SENTINELS: documented(hostPorts.optional(), {
      description: 'cluster mode on Redis behind Sentinel: the sentinels as `host:port,…`; the gateway follows their promotions',
      unsetMeans: 'unset',
    }),
    REDIS_SENTINEL_MASTER: documented(z.string().min(1).optional(), {
      description: 'the name the sentinels monitor the primary under (required with REDIS_SENTINELS)',
      unsetMeans: 'unset',
    }),
    REDIS_SENTINEL_PASSWORD: documented(z.string().min(1).optional(), {
      description: 'password of the sentinels themselves, when they require one',
      unsetMeans: 'unset: sentinels without a password',
    }),
    REDIS_CLUSTER_NODES: documented(hostPorts.optional(), {
      description: 'cluster mode on a Redis Cluster: some of its nodes as `host:port,…` (the others are found from them)',
      unsetMeans: 'unset',
    }),
    REDIS_USERNAME: documented(z.string().min(1).optional(), {
      description: 'ACL user of the Redis servers, for REDIS_SENTINELS and REDIS_CLUSTER_NODES (REDIS_URL carries its own)',
      unsetMeans: 'unset: the default user',
    }),
    REDIS_PASSWORD: documented(z.string().min(1).optional(), {
      description: 'password of the Redis servers, for REDIS_SENTINELS and REDIS_CLUSTER_NODES (REDIS_URL carries its own)',
      unsetMeans: 'unset: no password',
    }),
    REDIS_TLS: documented(flag.optional(), {
      description: 'TLS to the Redis servers (and sentinels), for REDIS_SENTINELS and REDIS_CLUSTER_NODES (REDIS_URL says `rediss://`)',
      unsetMeans: 'false',
    }),
    REDIS_KEY_PREFIX: documented(
      z
        .string()
        .min(1)
        .regex(/^[^{}]*$/, 'must not contain { or } (Redis Cluster hash tags are the gateway’s to place)')
        .default('rg:'),
      {
        description: 'prefix of every Redis key and channel of the gateway, so deployments can share one Redis',
      },
    ),
    REDIS_COMMAND_TIMEOUT_MS: documented(positiveMs.default(500), {
      description:
        'a Redis command unanswered this long fails, and the replica runs degraded (polling for its own subscribers) until Redis answers again',
    }),
  },
  rules({ values }) {
    const problems: string[] = [];
    const set = FORMS.filter((name) => values[name] !== undefined);
    if (set.length > 1) problems.push(`set only one of REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES, not ${set.join(' and ')}`);
    if (values.REDIS_SENTINELS && !values.REDIS_SENTINEL_MASTER) problems.push('REDIS_SENTINEL_MASTER is required with REDIS_SENTINELS');
    if (!values.REDIS_SENTINELS) {
      for (const name of ['REDIS_SENTINEL_MASTER', 'REDIS_SENTINEL_PASSWORD'] as const) {
        if (values[name] !== undefined) problems.push(`${name} is for REDIS_SENTINELS, which is unset`);
      }
    }
    if (values.REDIS_URL) {
      for (const name of ['REDIS_USERNAME', 'REDIS_PASSWORD', 'REDIS_TLS'] as const) {
        if (values[name] !== undefined) problems.push(`${name} is for REDIS_SENTINELS and REDIS_CLUSTER_NODES; with REDIS_URL put it in the URL`);
      }
    }
    return problems;
  },
});

export type ClusterSettings = AreaSettings<typeof clusterArea>;

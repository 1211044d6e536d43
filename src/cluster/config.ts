import { z } from 'zod';
import { configArea, documented, positiveMs } from '../config-area.js';

// The cluster area's environment variables (Redis, shared by every replica), composed by src/config.ts.

export const clusterArea = configArea({
  title: 'Cluster mode (Redis)',
  variables: {
    REDIS_URL: documented(z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379' }).optional(), {
      description: 'cluster mode: every replica on this Redis shares leases, snapshots, event logs and limits ([docs/cluster.md](docs/cluster.md))',
      unsetMeans: 'unset: one replica, state in memory',
    }),
    REDIS_KEY_PREFIX: documented(z.string().min(1).default('rg:'), {
      description: 'prefix of every Redis key and channel of the gateway, so deployments can share one Redis',
    }),
    REDIS_COMMAND_TIMEOUT_MS: documented(positiveMs.default(500), {
      description:
        'a Redis command unanswered this long fails, and the replica runs degraded (polling for its own subscribers) until Redis answers again',
    }),
  },
});

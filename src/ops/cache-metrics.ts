import { Counter, type Registry } from 'prom-client';
import type { CacheHooks } from '../cache/read-cache.js';

// The read cache's series (docs/caching.md): how reads were answered, and why entries were dropped.

export function cacheMetrics(registry: Registry): CacheHooks {
  const reads = new Counter({
    name: 'reward_gateway_cache_reads_total',
    help: 'Cached upstream reads by outcome: hit (no upstream request for it), miss (read from the upstream), stale (the upstream failed; an expired entry answered)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const invalidations = new Counter({
    name: 'reward_gateway_cache_invalidations_total',
    help: 'Cache entries dropped by cause: write (a mutation changed the object), poller (a poller saw it change), ttl (found expired)',
    labelNames: ['cause'],
    registers: [registry],
  });
  for (const outcome of ['hit', 'miss', 'stale']) reads.inc({ outcome }, 0);
  for (const cause of ['write', 'poller', 'ttl']) invalidations.inc({ cause }, 0);
  return {
    onRead: (outcome) => reads.inc({ outcome }),
    onInvalidate: (cause, entries) => invalidations.inc({ cause }, entries),
  };
}

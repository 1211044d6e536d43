import { useReadinessCheck, type Plugin } from 'graphql-yoga';
import type { UpstreamClient } from './upstream/types.js';

// /ready answers "can this instance serve?" by pinging the upstream, but a load balancer probing every
// second must not turn into an upstream ping every second: the answer is cached briefly.

export interface Readiness {
  check(): Promise<{ ready: boolean; reason?: string }>;
}

export function createReadiness(client: UpstreamClient, cacheMs: number, now = () => Date.now()): Readiness {
  let last: { at: number; result: Promise<{ ready: boolean; reason?: string }> } | null = null;
  return {
    check() {
      if (last && now() - last.at < cacheMs) return last.result;
      const result = client.ping().then(
        () => ({ ready: true }),
        (error: unknown) => ({
          ready: false,
          reason: error instanceof Error && 'kind' in error ? `upstream ${String(error.kind)}` : 'upstream unreachable',
        }),
      );
      last = { at: now(), result };
      return result;
    },
  };
}

export interface ReadinessProbe {
  readiness: Readiness;
  /** Whether the gateway is stopping: then it is not ready, whatever the upstream says. */
  draining(): boolean;
  /** Cluster mode's Redis: true up, false down, null without Redis. */
  redisUp(): boolean | null;
  /**
   * The OpenID issuers' signing keys (none fetched yet, fresh, stale). Reported, never a reason to refuse: while
   * an issuer is unreachable, tokens signed by its cached keys keep working.
   */
  issuers?(): { issuer: string; keys: string }[];
}

/**
 * /ready, served by yoga's readiness check. It runs before the access pipeline: a load balancer's probe carries
 * no key. Redis is reported, never a reason to refuse traffic: without it the gateway runs degraded, not down.
 */
export function useReadiness({ readiness, draining, redisUp, issuers }: ReadinessProbe): Plugin {
  return useReadinessCheck({
    endpoint: '/ready',
    check: async ({ fetchAPI }) => {
      const answer = (status: number, body: object) =>
        new fetchAPI.Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
      if (draining()) return answer(503, { status: 'draining' });
      const up = redisUp();
      const redis = { ...(up === null ? {} : { redis: up ? 'up' : 'down' }), ...(issuers ? { issuers: issuers() } : {}) };
      const r = await readiness.check();
      return r.ready ? answer(200, { status: 'ready', ...redis }) : answer(503, { status: 'unavailable', reason: r.reason, ...redis });
    },
  });
}

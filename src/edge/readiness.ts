import { useReadinessCheck, type Plugin } from 'graphql-yoga';
import type { IssuerState } from '../identity/jwt-verifier.js';
import type { Shield, UpstreamClient } from '../upstream/types.js';

// /ready answers one question: can this replica serve? It cannot while draining (and before it listens, when
// nothing answers at all). The reward API being down is not a reason to refuse: every replica shares that
// outage, so refusing would take the whole Service out at once and turn the stale reads and typed
// UpstreamUnavailable answers the gateway gives during an outage into the ingress's connection errors. The
// upstream's, the breaker's, Redis's and the issuers' state are reported in the body (and as metrics), never
// acted on. docs/operations.md, Endpoints.

export interface UpstreamObservation {
  /** `unknown` until the first ping has answered. */
  state: 'unknown' | 'up' | 'down';
  /** Why it is down: the failure's kind, never its text. */
  reason?: string;
  /** When the last ping answered (ISO). */
  checkedAt?: string;
}

export interface UpstreamWatch {
  /**
   * The last ping's outcome, at once; starts another ping in the background when that one is older than
   * `cacheMs` and none is under way. A probe never waits on the upstream (a hung one would make every probe
   * time out), and probes at any rate cost at most one ping per `cacheMs`.
   */
  observe(): UpstreamObservation;
  /** The last ping's outcome, starting none: what /metrics reports (a scrape is no reason to call the upstream). */
  last(): UpstreamObservation;
  /** Abandons the ping under way, if any (the gateway is stopping: nobody will read its outcome). */
  close(): void;
}

export function watchUpstream(client: UpstreamClient, cacheMs: number, now = () => Date.now()): UpstreamWatch {
  let last: UpstreamObservation = { state: 'unknown' };
  let sentAt = -Infinity;
  let pinging = false;
  const stopped = new AbortController();
  const settle = (observation: Omit<UpstreamObservation, 'checkedAt'>) => {
    last = { ...observation, checkedAt: new Date(now()).toISOString() };
    pinging = false;
  };
  return {
    observe() {
      if (!pinging && !stopped.signal.aborted && now() - sentAt >= cacheMs) {
        pinging = true;
        sentAt = now();
        client.ping({ signal: stopped.signal }).then(
          () => settle({ state: 'up' }),
          (error: unknown) =>
            settle({
              state: 'down',
              reason: error instanceof Error && 'kind' in error ? `upstream ${String(error.kind)}` : 'upstream unreachable',
            }),
        );
      }
      return last;
    },
    last: () => last,
    close: () => stopped.abort(),
  };
}

export interface ReadinessProbe {
  upstream: UpstreamWatch;
  /** The upstream client's breaker (its circuit's state). */
  shield: Shield;
  /** Whether the gateway is stopping: then it is not ready. */
  draining(): boolean;
  /** Cluster mode's Redis: true up, false down, null without Redis. */
  redisUp(): boolean | null;
  /** The OpenID issuers' signing keys (none fetched yet, fresh, stale): tokens signed by cached keys keep working. */
  issuers?(): IssuerState[];
}

/** What /ready reports beside its status. */
export function readinessReport({ upstream, shield, redisUp, issuers }: Omit<ReadinessProbe, 'draining'>) {
  const redis = redisUp();
  return {
    ...(redis === null ? {} : { redis: redis ? 'up' : 'down' }),
    upstream: upstream.observe(),
    circuit: shield.state().circuit,
    ...(issuers ? { issuers: issuers() } : {}),
  };
}

/** /ready, served by yoga's readiness check. It runs before the access pipeline: a load balancer's probe carries no key. */
export function useReadiness(probe: ReadinessProbe): Plugin {
  return useReadinessCheck({
    endpoint: '/ready',
    check: ({ fetchAPI }) => {
      const answer = (status: number, body: object) =>
        new fetchAPI.Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
      if (probe.draining()) return answer(503, { status: 'draining' });
      return answer(200, { status: 'ready', ...readinessReport(probe) });
    },
  });
}

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

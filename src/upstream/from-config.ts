import { createUpstreamClient, type UpstreamClientOptions } from './client.js';
import type { UpstreamSettings } from './config.js';
import type { UpstreamClient } from './types.js';

/** The upstream client as the environment configures it; `onCall` is where metrics hook in, `redact` the gateway's redactor. */
export function upstreamClientFromConfig(
  config: UpstreamSettings,
  target: { baseUrl: string; token: string },
  extra: Pick<UpstreamClientOptions, 'onCall' | 'logger' | 'redact'> = {},
): UpstreamClient {
  return createUpstreamClient({
    baseUrl: target.baseUrl,
    token: target.token,
    connections: config.UPSTREAM_CONNECTIONS,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    maxInFlight: config.UPSTREAM_MAX_IN_FLIGHT,
    queueTimeoutMs: config.UPSTREAM_QUEUE_TIMEOUT_MS,
    laneShare: config.UPSTREAM_KEY_SHARE,
    maxQueued: config.UPSTREAM_QUEUE_MAX,
    retry: {
      maxAttempts: config.UPSTREAM_RETRY_ATTEMPTS,
      baseDelayMs: config.UPSTREAM_RETRY_BASE_MS,
      maxDelayMs: config.UPSTREAM_RETRY_MAX_DELAY_MS,
      budgetMs: config.UPSTREAM_RETRY_BUDGET_MS,
    },
    rateLimit: config.UPSTREAM_RATE_LIMIT_PER_SECOND
      ? { perSecond: config.UPSTREAM_RATE_LIMIT_PER_SECOND, burst: config.UPSTREAM_RATE_LIMIT_BURST }
      : undefined,
    adaptiveLimit: config.UPSTREAM_ADAPTIVE_LIMIT,
    breaker: { failures: config.UPSTREAM_BREAKER_FAILURES, halfOpenAfterMs: config.UPSTREAM_BREAKER_HALF_OPEN_MS },
    ...extra,
  });
}

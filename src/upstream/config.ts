// Options of the upstream client and their defaults, resolved once so the rest of the client never deals with
// `undefined`. Validation here fails fast at start-up instead of on the first call. Also the upstream area's
// environment variables, which src/config.ts composes and src/upstream/from-config.ts turns into these options.

import { z } from 'zod';
import { configArea, count, documented, flag, positiveMs, type AreaSettings } from '../shared/config-area.js';
import type { CallEvent } from './call-event.js';

export interface RetryOptions {
  /** Attempts per call, the first included. */
  maxAttempts?: number;
  /** Backoff base: the n-th retry waits up to baseDelayMs * 2^(n-1), full jitter. */
  baseDelayMs?: number;
  /** Cap of one backoff wait (a longer Retry-After is still honoured, within the budget). */
  maxDelayMs?: number;
  /** Total time of one call: every attempt, queue wait and backoff together. */
  budgetMs?: number;
}

/**
 * The one copy of the client's defaults; the environment variables below default to these too.
 * Six attempts: with 10% upstream 5xx a create still succeeds all but once in a million (the budget bounds the
 * wait). 128 requests in flight (one API key may hold half), the pool with no cap of its own: at 16 and 32, ten concurrent
 * nested reads (ten gift pages each) queued for slots and served half the queries per second a peer without a
 * cap served, with the upstream idle; at 64 and 128 they match it (npm run bench, compare). 10,000 queued: a
 * bound on memory only (a few MB of waiters), four times what 50 concurrent 50-order dashboards queue at once;
 * at 512 those dashboards were refused GATEWAY_OVERLOADED on a healthy upstream (issue 22).
 */
export const CLIENT_DEFAULTS = {
  timeoutMs: 10_000,
  maxInFlight: 128,
  queueTimeoutMs: 5_000,
  laneShare: 0.5,
  maxQueued: 10_000,
  retry: { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 2_000, budgetMs: 15_000 },
  breaker: { failures: 5, halfOpenAfterMs: 5_000 },
} as const;

export interface UpstreamLogger {
  debug(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  /** The circuit's return to closed; warn when absent. */
  info?(obj: object, msg?: string): void;
  /** pino's: when it says debug is off, the client does not build its per-attempt lines at all. */
  isLevelEnabled?(level: 'debug'): boolean;
}

export interface UpstreamClientOptions {
  /** Includes /papi/v1, e.g. http://127.0.0.1:4010/papi/v1 */
  baseUrl: string;
  token: string;
  /** undici pool connection cap. */
  connections?: number;
  /** Per attempt, headers and body together. */
  timeoutMs?: number;
  /** Bulkhead: upstream requests in flight at once. */
  maxInFlight?: number;
  /** Bulkhead: how long a request may wait for a free slot; one whose wait is estimated longer is refused at once. */
  queueTimeoutMs?: number;
  /**
   * Bulkhead: the part (0–1] of maxInFlight one caller (lane) is sure of, and of maxQueued it may take. Beyond it a
   * lane alone borrows free slots while as many stay free as it has borrowed. Default 0.5.
   */
  laneShare?: number;
  /**
   * Bulkhead: requests waiting for a slot, all callers together: a bound on memory (requests whose wait is
   * estimated longer than queueTimeoutMs are refused long before it on a slow upstream). Default 10,000.
   */
  maxQueued?: number;
  retry?: RetryOptions;
  /**
   * The fixed ceiling of upstream requests (attempts) per second and its burst; unset: none, the adaptive limit
   * alone. In cluster mode the client's `shield.shareCeiling` replaces this process's bucket with Redis's.
   */
  rateLimit?: { perSecond: number; burst?: number };
  /** Circuit breaker: attempts failing in a row that open it, and how long it stays open before a probe. */
  breaker?: { failures?: number; halfOpenAfterMs?: number };
  /** The adaptive limit (AIMD on 429s); default on. */
  adaptiveLimit?: boolean;
  /** One event per client method call, for metrics. */
  onCall?: (event: CallEvent) => void;
  /** Per-attempt debug lines and warnings, for calls whose scope brings no logger; never given the token or a body. */
  logger?: UpstreamLogger;
  /**
   * Blanks secrets in the upstream's text as it enters: its free-text fields (normalise.ts) and the messages of
   * its errors. Pass the gateway redactor's, which knows every secret. Default: one that knows the token.
   */
  redact?: (text: string) => string;
}

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  budgetMs: number;
}

export interface ClientConfig {
  origin: string;
  /** Path prefix of every route, e.g. /papi/v1 (no trailing slash). */
  basePath: string;
  token: string;
  /** The pool's cap on connections; null: none of its own (the requests in flight bound them). */
  connections: number | null;
  timeoutMs: number;
  maxInFlight: number;
  queueTimeoutMs: number;
  laneShare: number;
  maxQueued: number;
  retry: RetryPolicy;
  rateLimit: { perSecond: number; burst: number } | null;
  breaker: { failures: number; halfOpenAfterMs: number };
  adaptiveLimit: boolean;
  onCall: ((event: CallEvent) => void) | undefined;
  logger: UpstreamLogger | undefined;
}

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1) throw new TypeError(`upstream client: ${name} must be a positive integer`);
  return v;
}

function nonNegativeInt(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 0) throw new TypeError(`upstream client: ${name} must be a non-negative integer`);
  return v;
}

function share(value: number): number {
  if (!(value > 0 && value <= 1)) throw new TypeError('upstream client: laneShare must be in (0, 1]');
  return value;
}

export function resolveConfig(opts: UpstreamClientOptions): ClientConfig {
  let url: URL;
  try {
    url = new URL(opts.baseUrl);
  } catch {
    throw new TypeError('upstream client: baseUrl is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError('upstream client: baseUrl must be http or https');
  }
  // Credentials in the URL would end up in places the token is kept out of; the token has its own option.
  if (url.username || url.password || url.search || url.hash) {
    throw new TypeError('upstream client: baseUrl must not carry credentials, a query or a fragment');
  }
  if (!opts.token) throw new TypeError('upstream client: token is required');
  return {
    origin: url.origin,
    basePath: url.pathname.replace(/\/+$/, ''),
    token: opts.token,
    connections: opts.connections === undefined ? null : positiveInt('connections', opts.connections, 1),
    timeoutMs: positiveInt('timeoutMs', opts.timeoutMs, CLIENT_DEFAULTS.timeoutMs),
    maxInFlight: positiveInt('maxInFlight', opts.maxInFlight, CLIENT_DEFAULTS.maxInFlight),
    queueTimeoutMs: nonNegativeInt('queueTimeoutMs', opts.queueTimeoutMs, CLIENT_DEFAULTS.queueTimeoutMs),
    laneShare: share(opts.laneShare ?? CLIENT_DEFAULTS.laneShare),
    maxQueued: positiveInt('maxQueued', opts.maxQueued, CLIENT_DEFAULTS.maxQueued),
    retry: {
      maxAttempts: positiveInt('retry.maxAttempts', opts.retry?.maxAttempts, CLIENT_DEFAULTS.retry.maxAttempts),
      baseDelayMs: nonNegativeInt('retry.baseDelayMs', opts.retry?.baseDelayMs, CLIENT_DEFAULTS.retry.baseDelayMs),
      maxDelayMs: nonNegativeInt('retry.maxDelayMs', opts.retry?.maxDelayMs, CLIENT_DEFAULTS.retry.maxDelayMs),
      budgetMs: positiveInt('retry.budgetMs', opts.retry?.budgetMs, CLIENT_DEFAULTS.retry.budgetMs),
    },
    rateLimit: rateLimit(opts.rateLimit),
    breaker: {
      failures: positiveInt('breaker.failures', opts.breaker?.failures, CLIENT_DEFAULTS.breaker.failures),
      halfOpenAfterMs: positiveInt('breaker.halfOpenAfterMs', opts.breaker?.halfOpenAfterMs, CLIENT_DEFAULTS.breaker.halfOpenAfterMs),
    },
    adaptiveLimit: opts.adaptiveLimit ?? true,
    onCall: opts.onCall,
    logger: opts.logger,
  };
}

/** Without a burst, one second's worth: the ceiling then allows at most twice the rate in any one second. */
function rateLimit(limit: UpstreamClientOptions['rateLimit']): ClientConfig['rateLimit'] {
  if (!limit) return null;
  if (!(limit.perSecond > 0)) throw new TypeError('upstream client: rateLimit.perSecond must be positive');
  const burst = limit.burst ?? Math.max(1, Math.ceil(limit.perSecond));
  return { perSecond: limit.perSecond, burst: positiveInt('rateLimit.burst', burst, 1) };
}

export const upstreamArea = configArea({
  title: 'Reward API (upstream)',
  variables: {
    REWARD_API_URL: documented(z.url({ protocol: /^https?$/ }).optional(), {
      description: 'base URL of the reward API, `/papi/v1` included',
      unsetMeans: 'the embedded sandbox',
    }),
    REWARD_API_TOKEN: documented(z.string().min(1).optional(), {
      description: 'bearer token for the reward API; required with `REWARD_API_URL` and in production',
      unsetMeans: '—',
    }),
    UPSTREAM_TIMEOUT_MS: documented(positiveMs.default(CLIENT_DEFAULTS.timeoutMs), {
      description: 'time one attempt may take, headers and body together',
    }),
    UPSTREAM_CONNECTIONS: documented(count.optional(), {
      description:
        'most connections the pool opens; at least `UPSTREAM_MAX_IN_FLIGHT`: a request the pool must hold for a free connection waits outside the fair queue and its timeouts, and its client span is made in whatever call freed the connection',
      unsetMeans: 'no cap of its own: `UPSTREAM_MAX_IN_FLIGHT` bounds the requests, so the connections, at once',
    }),
    UPSTREAM_MAX_IN_FLIGHT: documented(count.default(CLIENT_DEFAULTS.maxInFlight), {
      description: 'upstream requests at once; the rest wait in a queue',
    }),
    UPSTREAM_QUEUE_TIMEOUT_MS: documented(positiveMs.default(CLIENT_DEFAULTS.queueTimeoutMs), {
      description:
        "longest wait for a slot before `GATEWAY_OVERLOADED`, and a read's longest wait for a token of the upstream budget before `UPSTREAM_BUSY`; a request whose queue shows it would wait longer is refused at once",
    }),
    UPSTREAM_RATE_LIMIT_PER_SECOND: documented(z.coerce.number().positive().optional(), {
      description:
        'requests (attempts, retries included) per second the gateway sends the reward API, all replicas together in cluster mode; writes (every call of a mutation), then pollers, then reads when tokens are short, waiting keys in turn ([docs/caching.md](docs/caching.md#upstream-budget))',
      unsetMeans: 'no fixed ceiling: the adaptive limit alone',
    }),
    UPSTREAM_RATE_LIMIT_BURST: documented(count.optional(), {
      description: 'requests the budget lets out at once after a quiet spell (its bucket size)',
      unsetMeans: 'one second of `UPSTREAM_RATE_LIMIT_PER_SECOND`',
    }),
    UPSTREAM_ADAPTIVE_LIMIT: documented(flag.default(true), {
      description: 'learn the rate the reward API accepts from its 429s and stay below it (AIMD); `false` leaves only the fixed budget',
    }),
    UPSTREAM_BREAKER_FAILURES: documented(count.default(CLIENT_DEFAULTS.breaker.failures), {
      description:
        'attempts failing in a row (no connection, timeout, 5xx) that open the circuit breaker: reads fail at once with `UPSTREAM_UNAVAILABLE`, writes answer `UpstreamUnavailable` with nothing sent',
    }),
    UPSTREAM_BREAKER_HALF_OPEN_MS: documented(positiveMs.default(CLIENT_DEFAULTS.breaker.halfOpenAfterMs), {
      description: 'how long the circuit stays open before a probe (`GET /ping`) asks whether the reward API is back',
    }),
    UPSTREAM_QUEUE_MAX: documented(count.default(CLIENT_DEFAULTS.maxQueued), {
      description:
        'requests waiting for a slot, all keys together: a bound on memory only, since overload is refused by the wait (at 512 it refused busy dashboards on a healthy upstream); beyond it `GATEWAY_OVERLOADED` at once',
    }),
    UPSTREAM_KEY_SHARE: documented(z.coerce.number().gt(0).max(1).default(CLIENT_DEFAULTS.laneShare), {
      description:
        'part of `UPSTREAM_MAX_IN_FLIGHT` one API key is sure of, and of the queue it may hold; beyond it a key alone (no other key, nor the polling of the gateway itself, calling the reward API now or in the last second) borrows free slots while as many stay free as it has borrowed (at 0.5, up to three quarters), so a key that comes always finds one; the upstream budget shares its tokens by turns between the keys waiting ([docs/caching.md](docs/caching.md#priorities))',
    }),
    UPSTREAM_RETRY_ATTEMPTS: documented(count.default(CLIENT_DEFAULTS.retry.maxAttempts), {
      description: 'attempts per call, the first included (GETs and idempotent creates)',
    }),
    UPSTREAM_RETRY_BASE_MS: documented(positiveMs.default(CLIENT_DEFAULTS.retry.baseDelayMs), {
      description: 'backoff base: the n-th retry waits up to base × 2^(n-1), full jitter',
    }),
    UPSTREAM_RETRY_MAX_DELAY_MS: documented(positiveMs.default(CLIENT_DEFAULTS.retry.maxDelayMs), {
      description: 'longest single backoff wait',
    }),
    UPSTREAM_RETRY_BUDGET_MS: documented(positiveMs.default(CLIENT_DEFAULTS.retry.budgetMs), {
      description: 'total time of one call: every attempt, queue wait and backoff together',
    }),
  },
  rules({ values, missing, production }) {
    const problems: string[] = [];
    if (missing('REWARD_API_TOKEN') && (values.REWARD_API_URL || production)) {
      problems.push(`REWARD_API_TOKEN is required ${production ? 'in production' : 'when REWARD_API_URL is set'}`);
    }
    if (values.UPSTREAM_RATE_LIMIT_BURST !== undefined && values.UPSTREAM_RATE_LIMIT_PER_SECOND === undefined) {
      problems.push('UPSTREAM_RATE_LIMIT_BURST needs UPSTREAM_RATE_LIMIT_PER_SECOND');
    }
    const maxInFlight = values.UPSTREAM_MAX_IN_FLIGHT ?? CLIENT_DEFAULTS.maxInFlight;
    if (values.UPSTREAM_CONNECTIONS !== undefined && values.UPSTREAM_CONNECTIONS < maxInFlight) {
      problems.push(
        `UPSTREAM_CONNECTIONS (${values.UPSTREAM_CONNECTIONS}) must be at least UPSTREAM_MAX_IN_FLIGHT (${maxInFlight}), or unset: requests the pool holds wait outside the fair queue`,
      );
    }
    if (production && missing('REWARD_API_URL')) {
      problems.push('REWARD_API_URL is required in production (the embedded sandbox is for development only)');
    }
    return problems;
  },
});

export type UpstreamSettings = AreaSettings<typeof upstreamArea>;

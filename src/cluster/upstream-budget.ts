import type { RedisConnection } from './redis.js';

// The cluster's one upstream budget (UPSTREAM_RATE_LIMIT_PER_SECOND / _BURST): a token bucket every replica
// takes from, kept in Redis as GCRA (one number: when the bucket is full again), the same arithmetic as
// upstream/token-bucket.ts. One script per take, timed by Redis's own clock (TIME), so replicas whose clocks
// differ still count one bucket. The key carries a hash tag, so it stays a single-slot key on Redis Cluster.
// rate-limiter-flexible's RateLimiterRedis (which the gateway's own rate limit uses) counts fixed windows, and
// two bursts meeting across a window's edge would let the cluster send twice the budget within one second.
//
//   P {upstream-budget}   when the bucket is full again, in microseconds of Redis's clock (PX: one full refill)

/** KEYS[1] the bucket; ARGV rate per second, burst, tokens to keep (reads keep the reserve). Returns {granted, waitMs}. */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = 1000000 / tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local reserve = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local allowedAt = tat - (burst - 1 - reserve) * interval
if allowedAt > now then
  return {0, math.ceil((allowedAt - now) / 1000)}
end
tat = tat + interval
redis.call('SET', KEYS[1], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000) + 1000)
return {1, 0}
`;

/** KEYS[1] the bucket; ARGV rate per second. Gives back one token (never past a full bucket). */
const REFUND = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0') - 1000000 / tonumber(ARGV[1])
if tat <= now then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000) + 1000)
end
return 1
`;

export interface SharedUpstreamBudget {
  readonly limits: { rate: number; burst: number };
  take(reserve: number): Promise<{ granted: boolean; waitMs: number }>;
  /** Gives back a token taken for an attempt that was not sent. */
  refund(): Promise<void>;
  /** Only Redis knows the tokens left. */
  tokens(): null;
}

/** `prefix`: REDIS_KEY_PREFIX. */
export function redisUpstreamBudget(connection: RedisConnection, prefix: string, limits: { rate: number; burst: number }): SharedUpstreamBudget {
  const key = `${prefix}{upstream-budget}`;
  const client = connection.client as unknown as {
    rgUpstreamBudget?: (key: string, ...args: (string | number)[]) => Promise<[number, number]>;
    rgUpstreamBudgetRefund?: (key: string, rate: number) => Promise<number>;
  };
  if (!client.rgUpstreamBudget) connection.client.defineCommand('rgUpstreamBudget', { lua: TAKE, numberOfKeys: 1 });
  if (!client.rgUpstreamBudgetRefund) connection.client.defineCommand('rgUpstreamBudgetRefund', { lua: REFUND, numberOfKeys: 1 });
  return {
    limits,
    async take(reserve) {
      // A hanging Redis is bounded by the command timeout; the budget then lets the attempt out (the adaptive
      // limit still holds), rather than stopping every call to the reward API with Redis.
      const [granted, waitMs] = await connection.guard(client.rgUpstreamBudget!(key, limits.rate, limits.burst, reserve));
      return { granted: granted === 1, waitMs: Number(waitMs) };
    },
    async refund() {
      await connection.guard(client.rgUpstreamBudgetRefund!(key, limits.rate));
    },
    tokens: () => null,
  };
}

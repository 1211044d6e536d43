import { describe, expect } from 'vitest';
import { connectRedis } from '../../src/cluster/redis.js';
import { redisUpstreamBudget } from '../../src/cluster/upstream-budget.js';
import { it } from '../support/test.js';

// The cluster's upstream budget gives back a token taken for an attempt that was not sent (upstream/call.ts),
// as the process's own bucket does: the next attempt, on any replica, finds it; a full bucket stays at its burst.

describe("the Redis-shared budget's refund", () => {
  it('gives a token back to the shared bucket and never fills it past its burst', async ({ redis }) => {
    const prefix = `refund-${Date.now()}:`;
    const connection = connectRedis({ target: { url: redis.url }, prefix, commandTimeoutMs: 2_000 });
    try {
      expect(await connection.connected(5_000)).toBe(true);
      // A slow refill (one token in 1,000 s): only refunds put tokens back within the test.
      const budget = redisUpstreamBudget(connection, prefix, { rate: 0.001, burst: 3 });
      for (let i = 0; i < 3; i++) expect((await budget.take(0)).granted).toBe(true);
      expect((await budget.take(0)).granted).toBe(false);
      await budget.refund();
      expect((await budget.take(0)).granted).toBe(true);
      expect((await budget.take(0)).granted).toBe(false);
      // Three refunds into an empty bucket and three more: it holds its burst, not six.
      for (let i = 0; i < 6; i++) await budget.refund();
      let taken = 0;
      while ((await budget.take(0)).granted) taken++;
      expect(taken).toBe(3);
    } finally {
      connection.close();
    }
  });
});

import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import type { TestSandbox } from '../support/sandbox.js';
import { testWith } from '../support/test.js';
import { connectMcp, structured, type McpTestClient } from './support.js';

// An agent's retries through /mcp: the create tool takes the idempotency id, so the same call sent at once
// several times, or again after the agent gave up waiting, makes one order. Counted by the sandbox's own
// record of creates per id (/__sandbox/stats). Failures come back as tool results that say what to do next,
// never as success and never as a protocol error.

const it = testWith({ sandboxOptions: { balances: { USD: 100_000_000 } }, env: { MCP_ENABLED: 'true' } });
it.afterEach(async ({ sandbox }) => {
  await sandbox.control.clearFaults();
});

const creates = async (sandbox: TestSandbox, id: string) => (await sandbox.control.stats()).creates[id] ?? 0;
const orderInput = (overrides: Record<string, unknown> = {}) => ({
  id: uniqueId('agent'),
  priceInCents: 1000,
  reward: { brand: 'sbxcoffeeus' },
  contacts: [{ email: 'recipient@example.com' }],
  subject: 'Thank you',
  message: 'A small thank-you.',
  ...overrides,
});
const create = (mcp: McpTestClient, input: Record<string, unknown>, options?: { timeout: number }) =>
  mcp.client.callTool({ name: 'CreateReward', arguments: { input } }, undefined, options);

describe('the same create, again and again', () => {
  it('sent after a timeout, then five times at once, then once more: one order, and every answer names it', async ({ gateway, sandbox }) => {
    const mcp = await connectMcp(await gateway.listen());
    try {
      const input = orderInput();
      // The order is made, then its answer is late: the agent stops waiting before it comes.
      await sandbox.control.fault({ route: 'POST /campaign', latency_ms: 1_000, after: true, rate: 1, count: 1 });
      const timedOut = await create(mcp, input, { timeout: 100 }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(timedOut).toBeInstanceOf(McpError);
      expect((timedOut as McpError).code).toBe(ErrorCode.RequestTimeout);

      const answers = await Promise.all(Array.from({ length: 5 }, () => create(mcp, input)));
      const again = await create(mcp, input);
      const orders = new Set<string>();
      for (const answer of [...answers, again]) {
        expect(answer.isError, JSON.stringify(answer)).toBeFalsy();
        const { createCampaign } = structured(answer);
        expect(createCampaign).toMatchObject({ __typename: 'CreateCampaignPayload', orderId: input.id });
        orders.add(createCampaign.orderUuid);
      }
      expect(orders.size).toBe(1);
      expect(structured(again).createCampaign.replayed).toBe(true);
      expect(await creates(sandbox, input.id)).toBe(1);
    } finally {
      await mcp.close();
    }
  });
});

describe('failures are results that say what to do next', () => {
  it('OutcomeUnknown: isError, the type and its fields, and the schema’s advice; the same call again creates once', async ({ gateway, sandbox }) => {
    const mcp = await connectMcp(await gateway.listen());
    try {
      const input = orderInput();
      // A 200 that cannot be read, for a create that was not processed: the gateway cannot tell.
      await sandbox.control.fault({ route: 'POST /campaign', garble: true, rate: 1 });
      const unknown = await create(mcp, input);
      expect(unknown.isError).toBe(true);
      expect(structured(unknown).error).toMatchObject({
        type: 'OutcomeUnknown',
        retrySameIdIsSafe: true,
        next: expect.stringMatching(/^The reward API may or may not/),
      });
      expect(await creates(sandbox, input.id)).toBe(0);

      await sandbox.control.clearFaults();
      const retry = await create(mcp, input);
      expect(retry.isError).toBeFalsy();
      expect(await creates(sandbox, input.id)).toBe(1);
    } finally {
      await mcp.close();
    }
  });

  it('IdempotencyConflict: the id of another order, nothing done', async ({ gateway, sandbox }) => {
    const mcp = await connectMcp(await gateway.listen());
    try {
      const input = orderInput();
      expect((await create(mcp, input)).isError).toBeFalsy();
      const conflict = await create(mcp, { ...input, contacts: [{ email: 'someone.else@example.com' }] });
      expect(conflict.isError).toBe(true);
      expect(structured(conflict).error).toMatchObject({
        type: 'IdempotencyConflict',
        id: input.id,
        conflictingFields: ['contacts'],
        next: expect.stringMatching(/Use a new id for a new order/),
      });
      expect(await creates(sandbox, input.id)).toBe(1);
    } finally {
      await mcp.close();
    }
  });

  it('ValidationError: the issues, and nothing sent', async ({ gateway }) => {
    const mcp = await connectMcp(await gateway.listen());
    try {
      await gateway.upstreamDelta();
      const invalid = await create(mcp, orderInput({ contacts: [{ email: 'not-an-address' }] }));
      expect(invalid.isError).toBe(true);
      expect(structured(invalid).error).toMatchObject({
        type: 'ValidationError',
        issues: [expect.objectContaining({ path: expect.arrayContaining(['contacts']) })],
        next: 'The input broke one or more rules; nothing was sent upstream.',
      });
      expect((await gateway.upstreamDelta())['POST /campaign'] ?? 0).toBe(0);
    } finally {
      await mcp.close();
    }
  });

  it('UpstreamUnavailable while the circuit is open: retry the same input after retryAfterSeconds; nothing was sent', async ({ gatewayWith }) => {
    const gw = await gatewayWith({ listen: true, env: { UPSTREAM_BREAKER_FAILURES: '3', UPSTREAM_RETRY_ATTEMPTS: '2' } });
    const mcp = await connectMcp(gw.url);
    try {
      expect((await mcp.client.callTool({ name: 'FindRewards', arguments: { first: 1 } })).isError).toBeFalsy();
      await gw.sandbox.control.fault({ status: 503, rate: 1 });
      // Two reads of two failed attempts each: the third failure in a row opens the circuit.
      for (let i = 0; i < 2; i++) {
        const read = await mcp.client.callTool({ name: 'ReadBalances', arguments: {} });
        expect(structured(read).error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', retryable: true });
      }
      const input = orderInput();
      const unavailable = await create(mcp, input);
      expect(unavailable.isError).toBe(true);
      expect(structured(unavailable).error).toMatchObject({
        type: 'UpstreamUnavailable',
        retryAfterSeconds: expect.any(Number),
        next: expect.stringContaining('Send the very same request again, with the same id'),
      });
      expect(await creates(gw.sandbox, input.id)).toBe(0);
    } finally {
      await mcp.close();
    }
  });

  it('input the operation cannot take is a failed result, not a protocol error, and nothing is sent', async ({ gateway }) => {
    const mcp = await connectMcp(await gateway.listen());
    try {
      await gateway.upstreamDelta();
      const withoutReward: Record<string, unknown> = orderInput();
      delete withoutReward.reward;
      const result = await create(mcp, withoutReward);
      expect(result.isError).toBe(true);
      expect(structured(result).error).toMatchObject({ message: expect.stringContaining('reward') });
      expect(await gateway.upstreamDelta()).toEqual({});
    } finally {
      await mcp.close();
    }
  });
});

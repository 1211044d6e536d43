import type { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { isStoreFailure, isUnconfirmedWrite, markStoreFailure } from '../../src/cluster/store-failure.js';
import { maskError } from '../../src/edge/error-masking.js';
import { createEndpoints, type EndpointsDeps } from '../../src/webhooks/endpoints.js';
import { createMemoryWebhookStore } from '../../src/webhooks/memory-store.js';
import type { WebhookEndpoint, WebhookStore } from '../../src/webhooks/store.js';

// Which failures of the shared store the endpoint API reports as a change that may have been saved. The store is
// Redis in cluster mode (test/webhooks/cluster-webhooks-redis-outage.test.ts hangs a real one); here one of its
// calls fails as redis.ts's guard makes it fail, at a point a hang cannot be timed to: between the read a change
// starts with and its write.

const OWNER = 'key:dashboard';
const ENDPOINT = { id: 'endpoint-2026-11-29', owner: OWNER, secret: 'whsec_c2VjcmV0LW9mLTIwMjYtMTEtMjk=' } as WebhookEndpoint;

/** What redis.ts's guard throws for a command Redis did not answer (ioredis's object, shared by every waiting command). */
function unanswered(): Error {
  const error = new Error('Command timed out');
  markStoreFailure(error);
  return error;
}

async function endpointsOver(failing: Partial<Record<keyof WebhookStore, Error>>) {
  const store = createMemoryWebhookStore();
  await store.insert(ENDPOINT, 10);
  const faulty = { ...store };
  for (const [method, error] of Object.entries(failing)) (faulty as Record<string, unknown>)[method] = () => Promise.reject(error);
  const supervisor = { stop: () => undefined, wake: () => undefined } as unknown as EndpointsDeps['supervisor'];
  return createEndpoints({
    store: faulty,
    check: async () => ({ ok: true }),
    source: {} as EndpointsDeps['source'],
    maxEndpointsPerKey: 10,
    supervisor,
    now: () => Date.parse('2026-11-29T12:00:00Z'),
  } as EndpointsDeps);
}

const masked = (error: unknown) => maskError(error) as GraphQLError;

describe('the webhook endpoint API when the shared store stops answering', () => {
  it('a write that got no answer may have been saved: STORE_UNAVAILABLE, not retryable, read it back', async () => {
    const shared = unanswered();
    const endpoints = await endpointsOver({ update: shared, remove: shared });
    for (const change of [endpoints.rotateSecret(OWNER, ENDPOINT.id), endpoints.delete(OWNER, ENDPOINT.id)]) {
      const error = await change.then(
        () => null,
        (e: unknown) => e,
      );
      expect(isUnconfirmedWrite(error)).toBe(true);
      const answer = masked(error);
      expect(answer.extensions).toMatchObject({ code: 'STORE_UNAVAILABLE', retryable: false });
      expect(answer.message).toMatch(/may have been saved: read it back before making it again/);
      // Nothing of the store's error, nor the secret, reaches the client.
      expect(JSON.stringify({ extensions: answer.extensions, message: answer.message })).not.toMatch(/timed out|whsec_/);
    }
    // The store's own error object is not marked: other requests' reads were rejected with the same one.
    expect(isStoreFailure(shared)).toBe(true);
    expect(isUnconfirmedWrite(shared)).toBe(false);
  });

  it('a read that failed first changed nothing: STORE_UNAVAILABLE to retry', async () => {
    const endpoints = await endpointsOver({ get: unanswered() });
    const error = await endpoints.rotateSecret(OWNER, ENDPOINT.id).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isUnconfirmedWrite(error)).toBe(false);
    const answer = masked(error);
    expect(answer.extensions).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(answer.extensions.retryable).not.toBe(false);
    expect(answer.message).toBe("The gateway's shared store (Redis) does not answer now; retry shortly.");
  });

  it('a failure that is not the store’s stays an internal error', async () => {
    const endpoints = await endpointsOver({ update: new TypeError('a defect') });
    const error = await endpoints.rotateSecret(OWNER, ENDPOINT.id).then(
      () => null,
      (e: unknown) => e,
    );
    expect(masked(error).extensions).toMatchObject({ code: 'INTERNAL_SERVER_ERROR' });
  });
});

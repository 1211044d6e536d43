import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { RateLimitDecision, RateLimiter } from './rate-limit.js';
import { isCallerContext } from './caller-context.js';
import { refusalError, refusalResponse, type Refusal } from './refusal.js';
import type { Caller } from './scopes.js';
import type { Authentication } from './use-api-keys.js';
import { describeFailure } from '../errors/gateway-error.js';

// Operations per API key (RATE_LIMIT_PER_SECOND, default 20/s, with a burst of RATE_LIMIT_BURST, default 40; the
// defaults are security/config.ts's, resolved in security.ts),
// right after authentication: a key past its rate is a 429 with Retry-After before anything is parsed. Over
// WebSocket each `subscribe` spends from the same bucket in this plugin's params stage and gets the same error,
// and a connection_init over the rate is closed with 4429 (edge/ws-admission.ts). In cluster mode the bucket is
// shared in Redis (shared-rate-limit.ts), otherwise it is this process's (rate-limit.ts).
// Keyless development (no GATEWAY_API_KEYS) has one caller, so the bucket is per remote address instead: one
// local tool's burst (an audit, a load test) does not throttle the browser or the other tools beside it. Its
// default burst is larger (400): one developer's tools, from one address, are burstier than a production client.

export interface RateLimit {
  /**
   * Spends one operation of the caller's key (in keyless development: of the remote address `from`): null when
   * allowed, else the refusal. At once (no promise) when the bucket is this process's, so an admitted operation
   * waits for no extra turn of the event loop.
   */
  spend(caller: Caller, from?: string): Refusal | null | Promise<Refusal | null>;
}

export function createRateLimit(limiter: RateLimiter, options: { perAddress: boolean } = { perAddress: false }): RateLimit {
  return {
    spend(caller, from) {
      const byAddress = options.perAddress && from !== undefined;
      const refusal = (decision: RateLimitDecision): Refusal | null =>
        decision.allowed
          ? null
          : byAddress
            ? describeFailure('RATE_LIMITED', { by: 'address', address: from, retryAfterSeconds: decision.retryAfterSeconds })
            : describeFailure('RATE_LIMITED', { by: 'key', apiKey: caller.name, retryAfterSeconds: decision.retryAfterSeconds });
      const decision = limiter.take(byAddress ? `${caller.name}@${from}` : caller.name);
      return decision instanceof Promise ? decision.then(refusal) : refusal(decision);
    },
  };
}

export function useRateLimit(rateLimit: RateLimit, authentication: Pick<Authentication, 'admitted' | 'callerOf'>): Plugin {
  return {
    onRequest({ request, serverContext, fetchAPI, endResponse }) {
      // Only what authentication let in as a caller (not the GraphiQL page) is an operation to count.
      if (!authentication.admitted(request)) return;
      const refusal = rateLimit.spend(authentication.callerOf(request), remoteAddress(serverContext));
      if (refusal instanceof Promise) {
        return refusal.then((later) => {
          if (later) endResponse(refusalResponse(later, fetchAPI.Response));
        });
      }
      if (refusal) endResponse(refusalResponse(refusal, fetchAPI.Response));
    },
    // An operation without an HTTP request spends here, before any other params hook (trusted documents) reads
    // it. A webhook endpoint's subscription is the gateway's own work for the caller who registered the endpoint
    // (a mutation, which spent): it spends nothing.
    onParams({ request, context }) {
      if (request || !isCallerContext(context) || context.transport !== 'websocket') return;
      const refusal = rateLimit.spend(context.caller, context.address);
      if (refusal instanceof Promise) return refusal.then(refuse);
      refuse(refusal);
    },
  };
}

/** The params stage's refusal: the operation's error (edge/run-as-caller.ts hands it to the transport). */
function refuse(refusal: Refusal | null): void {
  if (refusal) throw refusalError(refusal);
}

/** The peer of the node:http request yoga was handed (none for yoga.fetch in process). */
function remoteAddress(serverContext: unknown): string | undefined {
  return (serverContext as { req?: IncomingMessage } | undefined)?.req?.socket?.remoteAddress;
}

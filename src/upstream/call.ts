// The life of one client method call: attempts through the bulkhead and the transport, retries within the
// policy and the call's time budget, reading a 200 body, an optional rescue of the final failure (a lookup
// returning null on 404, or a POST recovered by looking the order up), and exactly one CallEvent at the end.
// A write whose final failure leaves its effect open is marked `outcomeUnknown` here, the one place that
// knows every attempt it made. Each attempt first passes the shield (shield.ts): an open circuit refuses it
// with nothing sent, and it takes a token of the upstream budget (a retry costs one too).

import type { Redact } from '../redaction/redaction.js';
import { spanEvent } from '../telemetry/spans.js';
import type { ClientConfig, UpstreamLogger } from './config.js';
import { Bulkhead } from './bulkhead.js';
import type { CallEvent } from './call-event.js';
import { UpstreamError } from './errors.js';
import {
  abortedFailure,
  amend,
  busyFailure,
  circuitOpenFailure,
  httpFailure,
  upstreamTextRedactor,
  invalidResponseFailure,
  overloadedFailure,
} from './failures.js';
import { GATEWAY_SCOPE, type UpstreamScope } from './scope.js';
import { isAmbiguous, isTransient, pause, retryDelayMs } from './retry.js';
import { createShield, type ShieldCore } from './shield.js';
import { NO_STOPS, stopped, type Stops } from './stops.js';
import { createTransport, type HttpMethod, type Transport, type WireResponse } from './transport.js';
import type { Priority } from './types.js';
import type { Parsed } from './wire.js';

export interface RequestSpec<T> {
  method: HttpMethod;
  /** Route pattern, e.g. "GET /campaign/:id". */
  route: string;
  /** Path below the base path with parameters encoded and the query appended. */
  path: string;
  body?: object;
  /** Safe to send again: GETs, DELETE, and POSTs carrying the caller's idempotent id. */
  idempotent: boolean;
  parse: (json: unknown) => Parsed<T>;
}

export interface FailureFacts {
  /** Some attempt may have been processed upstream (reset, timeout, 5xx, unreadable 200): the outcome is unknown. */
  ambiguous: boolean;
  /** The call's own stop signal and its scope, for the lookups a rescue makes. */
  signal: AbortSignal | undefined;
  scope: UpstreamScope;
}

export interface CallSpec<T> extends RequestSpec<T> {
  /**
   * Gets a say on the final failure: a value ends the call as a success (`recovered` marks a lookup after a
   * lost answer), null lets the failure stand, a thrown UpstreamError replaces it.
   */
  rescue?: (error: UpstreamError, facts: FailureFacts) => Promise<{ value: T; recovered: boolean } | null>;
}

type RequestResult<T> =
  | { ok: true; value: T; status: number; attempts: number }
  | { ok: false; error: UpstreamError; ambiguous: boolean; status: number; attempts: number };

export interface Caller {
  /** One client method call: retries, rescue, one CallEvent. */
  call<T>(spec: CallSpec<T>, scope: UpstreamScope, signal?: AbortSignal): Promise<T>;
  /** Retries only, no event: for the lookups a rescue makes on behalf of the call that is reporting. */
  request<T>(spec: RequestSpec<T>, scope: UpstreamScope, signal?: AbortSignal): Promise<RequestResult<T>>;
  /** The budget and the circuit breaker every attempt passes. */
  readonly shield: ShieldCore;
  /** The slots every attempt takes (its counts: metrics and tests). */
  readonly bulkhead: Pick<Bulkhead, 'inFlight' | 'queued'>;
  close(): Promise<void>;
}

/**
 * `redact`: the gateway's redactor, for the upstream's error text. `transport`: undici's by default; the
 * model-based test (test/upstream/pipeline-model.test.ts) gives a simulated upstream.
 */
export function createCaller(config: ClientConfig, redact: Redact, transport: Transport = createTransport(config, redact)): Caller {
  const bulkhead = new Bulkhead({ maxInFlight: config.maxInFlight, laneShare: config.laneShare, maxQueued: config.maxQueued });
  const errorText = upstreamTextRedactor(redact);
  const { retry: policy } = config;
  // A retry is only worth starting with time left for a real attempt: a tenth of the budget (at most the
  // per-attempt timeout). Without it the last attempt of a storm would be cut to a few milliseconds by the
  // budget and the call would end as a meaningless timeout instead of the 429 or 5xx it really met.
  const minAttemptMs = Math.min(config.timeoutMs, Math.ceil(policy.budgetMs / 10));
  const shield = createShield(config, probe);

  /** A slot of the bulkhead for one attempt, waiting at most `waitMs`; a free slot without a promise. */
  function slot(route: string, lane: string, waitMs: number, stops: Stops): (() => void) | Promise<() => void> {
    // Only a full lane or bulkhead waits (transport.send refuses a stopped call before sending anything).
    const free = bulkhead.tryAcquire(lane);
    if (free) return free.release;
    return bulkhead.acquire(lane, waitMs, stops).then((queued) => {
      if (!queued.admitted) {
        throw queued.reason === 'aborted' ? abortedFailure(route) : overloadedFailure(route, queued.reason, waitMs, queued.expectedWaitMs);
      }
      return queued.release;
    });
  }

  /** The breaker's half-open test: GET /ping, as a write's priority in the budget, never a caller's request. */
  async function probe(): Promise<WireResponse> {
    const route = 'GET /ping';
    const grant = await shield.take('write', GATEWAY_SCOPE.lane, config.timeoutMs, NO_STOPS);
    if (!grant.granted) throw busyFailure(route, grant.retryAfterSeconds);
    let release: () => void;
    try {
      release = await slot(route, GATEWAY_SCOPE.lane, config.timeoutMs, NO_STOPS);
    } catch (error) {
      shield.refund();
      throw error;
    }
    return transport.send({ method: 'GET', route, path: '/ping' }, undefined, config.timeoutMs, NO_STOPS, undefined, 1, release);
  }

  /**
   * One attempt: a token of the budget, a slot of the bulkhead, then the breaker and the transport. What it
   * took is given back on every path: the slot when undici is done with the request (transport.send calls
   * `release`), or at once when the attempt ends unsent, and then the token too (refunded: an attempt never
   * sent costs the budget nothing). The circuit is asked last, right before sending, so an attempt that
   * waited while it opened is refused with nothing sent.
   */
  async function attemptOnce(
    spec: RequestSpec<unknown>,
    body: string | undefined,
    deadline: number,
    scope: UpstreamScope,
    stops: Stops,
    attempt: number,
  ): Promise<WireResponse> {
    const { breaker } = shield;
    if (breaker.state !== 'closed') throw refusedOpen(spec.route);
    const priority: Priority = spec.method !== 'GET' ? 'write' : (scope.priority ?? 'read');
    const callLeftMs = Math.max(0, deadline - Date.now());
    const taken = shield.take(priority, scope.lane, priority === 'read' ? Math.min(config.queueTimeoutMs, callLeftMs) : callLeftMs, stops);
    const grant = taken instanceof Promise ? await taken : taken;
    if (!grant.granted) {
      if (grant.reason === 'aborted') throw abortedFailure(spec.route);
      spanEvent('upstream.budget.refused', () => ({ 'reward.upstream.route': spec.route }));
      throw busyFailure(spec.route, grant.retryAfterSeconds);
    }
    let release: (() => void) | null = null;
    let sent = false;
    try {
      const slotted = slot(spec.route, scope.lane, Math.max(0, Math.min(config.queueTimeoutMs, deadline - Date.now())), stops);
      release = typeof slotted === 'function' ? slotted : await slotted;
      if (stopped(stops)) throw abortedFailure(spec.route);
      const timeoutMs = Math.max(1, Math.min(config.timeoutMs, deadline - Date.now()));
      const sentAt = performance.now();
      const held = release;
      // The slot is freed when undici is done with the request, not when the attempt ends: one stopped while it
      // waited for a connection is still in the pool's queue, and the bulkhead bounds what the pool holds.
      // The transport makes the attempt's client span, with its retry number.
      const res = await breaker.run(
        () => {
          sent = true;
          return transport.send(spec, body, timeoutMs, stops, scope.requestId, attempt, held);
        },
        () => refusedOpen(spec.route),
      );
      shield.answered(sentAt, res);
      return res;
    } catch (error) {
      if (!sent) {
        release?.();
        shield.refund();
      }
      throw error;
    }
  }

  /** An attempt the open circuit refuses with nothing sent: an event on the operation's span, no client span. */
  function refusedOpen(route: string): UpstreamError {
    spanEvent('upstream.circuit_open.refused', () => ({ 'reward.upstream.route': route }));
    return circuitOpenFailure(route, shield.breaker.retryAfterSeconds());
  }

  function read<T>(spec: RequestSpec<T>, json: unknown): T {
    if (json === undefined) throw invalidResponseFailure(spec.route, 'the body is not JSON');
    const parsed = spec.parse(json);
    // The problem names field paths, and record keys are the upstream's text.
    if (!parsed.ok) throw invalidResponseFailure(spec.route, errorText(parsed.problem));
    return parsed.value;
  }

  /** Retries of one request, stopped by the caller's own signal or by the scope's. */
  async function request<T>(spec: RequestSpec<T>, scope: UpstreamScope, signal?: AbortSignal): Promise<RequestResult<T>> {
    const debug = debugLogger(scope.log ?? config.logger);
    const stops: Stops = { own: signal, scope: scope.signal };
    const deadline = Date.now() + policy.budgetMs;
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    let ambiguous = false;
    let previous: { error: UpstreamError; status: number; unknown: boolean } | null = null;
    for (let attempt = 1; ; attempt++) {
      const started = debug ? performance.now() : 0;
      let error: UpstreamError;
      let status = 0;
      try {
        const res = await attemptOnce(spec, body, deadline, scope, stops, attempt);
        status = res.status;
        if (res.status === 200) {
          const value = read(spec, res.json);
          debug?.debug({ route: spec.route, attempt, status, durationMs: elapsed(started) }, 'upstream attempt');
          return { ok: true, value, status, attempts: attempt };
        }
        error = httpFailure(spec.route, res.status, res.json, res.retryAfterSeconds, errorText);
      } catch (err) {
        if (!(err instanceof UpstreamError)) throw err;
        error = err;
      }
      // A retry the budget could not fit in before the call's deadline says nothing new: the call ends with
      // what the upstream last answered (a 429 storm stays a rate-limit error, not "busy").
      if (error.kind === 'busy' && previous) {
        return {
          ok: false,
          error: final(spec, previous.error, attempt - 1),
          ambiguous: previous.unknown,
          status: previous.status,
          attempts: attempt - 1,
        };
      }
      ambiguous ||= isAmbiguous(error) || error.outcomeUnknown;
      // A later clear rejection of the same body (say 422) settles what an earlier unclear failure left open;
      // a refusal of the credentials says nothing about the earlier attempt.
      const unknown = ambiguous && (error.kind !== 'http' || isTransient(error) || error.status === 401 || error.status === 403);
      previous = { error, status, unknown };
      const retryInMs =
        spec.idempotent && isTransient(error) && !stopped(stops)
          ? retryDelayMs(policy, attempt, error.retryAfterSeconds, deadline - Date.now() - minAttemptMs)
          : null;
      debug?.debug(
        { route: spec.route, attempt, status, durationMs: elapsed(started), errorKind: error.kind, ...(retryInMs === null ? {} : { retryInMs }) },
        'upstream attempt failed',
      );
      if (retryInMs === null) return { ok: false, error: final(spec, error, attempt), ambiguous: unknown, status, attempts: attempt };
      if (!(await pause(retryInMs, stops))) {
        return { ok: false, error: amend(abortedFailure(spec.route), { attempts: attempt }), ambiguous: unknown, status, attempts: attempt };
      }
    }
  }

  function final(spec: RequestSpec<unknown>, error: UpstreamError, attempts: number): UpstreamError {
    const suffix = attempts > 1 ? ` (gave up after ${attempts} attempts)` : '';
    // A repeat of a non-idempotent call (resend) after an unclear failure could act twice: not "retryable".
    const retryable = error.retryable && (spec.idempotent || !isAmbiguous(error));
    return amend(error, { attempts, retryable }, error.message + suffix);
  }

  function emit(event: CallEvent, scope: UpstreamScope): void {
    try {
      config.onCall?.(event);
    } catch {
      // A faulty metrics listener must not turn a finished call into a failure.
      (scope.log ?? config.logger)?.warn({ route: event.route }, 'upstream onCall listener threw');
    }
  }

  async function call<T>(spec: CallSpec<T>, scope: UpstreamScope, signal?: AbortSignal): Promise<T> {
    const started = performance.now();
    const result = await request(spec, scope, signal);
    if (result.ok) {
      emit({ route: spec.route, status: result.status, attempts: result.attempts, durationMs: elapsed(started), outcome: 'ok' }, scope);
      return result.value;
    }
    const base = { route: spec.route, status: result.status, attempts: result.attempts };
    // A write that may have happened says so on its error, whatever the rescue then does with it: a rescue
    // that finds nothing lets it stand, and the client is told the outcome is unknown rather than "retry".
    let error = spec.method !== 'GET' && result.ambiguous ? amend(result.error, { outcomeUnknown: true }) : result.error;
    if (spec.rescue && error.kind !== 'aborted') {
      try {
        // A write's lookups are part of the write: its priority in the budget, whoever made the call.
        const rescueScope: UpstreamScope = spec.method === 'GET' ? scope : { ...scope, priority: 'write' };
        const rescued = await spec.rescue(error, { ambiguous: result.ambiguous, signal, scope: rescueScope });
        if (rescued) {
          emit({ ...base, durationMs: elapsed(started), outcome: 'ok', ...(rescued.recovered ? { recovered: true } : {}) }, scope);
          return rescued.value;
        }
      } catch (err) {
        if (!(err instanceof UpstreamError)) throw err;
        error = err;
      }
    }
    emit({ ...base, durationMs: elapsed(started), outcome: 'error', errorKind: error.kind }, scope);
    throw error;
  }

  return {
    call,
    request,
    shield,
    bulkhead,
    close: () => {
      shield.close();
      return transport.close();
    },
  };
}

function elapsed(since: number): number {
  return Math.round(performance.now() - since);
}

/** The logger when it writes debug lines: per-attempt lines are not even built otherwise. */
function debugLogger(logger: UpstreamLogger | undefined): UpstreamLogger | undefined {
  return logger && logger.isLevelEnabled?.('debug') !== false ? logger : undefined;
}

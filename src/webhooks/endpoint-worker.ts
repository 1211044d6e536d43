import type { AttemptOutcome, SendAttempt } from './attempt.js';
import { retryDelay } from './backoff.js';
import { splitEvent, type SubscriptionShape } from './document.js';
import { messageId, signedHeaders } from './signing.js';
import type { EventResult, Opened } from './source.js';
import type { AttemptRecord, Delivery, WebhookEndpoint, WebhookStore } from './store.js';

// One endpoint's delivery in this process: the subscription's events go into the endpoint's queue as they are
// logged, and one loop sends the queue's head until the receiver accepts it, then the next, so a later event
// always waits for the earlier one. A failed attempt (non-2xx, timeout, connection, refused address) is tried
// again with the same webhook-id after a growing wait, until WEBHOOK_RETRY_FOR_MS has passed since its first
// attempt; then the endpoint is disabled, its queue kept for when it is enabled again.

export interface WorkerSettings {
  timeoutMs: number;
  retryBaseMs: number;
  retryForMs: number;
}

/** How attempts end, for metrics: `success` is a 2xx. */
export type AttemptResult = 'success' | 'http_error' | 'timeout' | 'connection' | 'refused';

/** What the worker reports as it goes (metrics). */
export interface DeliveryHooks {
  attempt(endpointId: string, result: AttemptResult): void;
  /** A delivery the receiver accepted; `latencyMs` from when the event was taken from its log. */
  delivered(endpointId: string, latencyMs: number, attempts: number): void;
  /** The endpoint was disabled after a delivery failed for the whole retry window. */
  expired(endpointId: string): void;
}

export interface WorkerDeps {
  store: WebhookStore;
  send: SendAttempt;
  settings: WorkerSettings;
  hooks: DeliveryHooks;
  /** Called once when the retry window ends: disables the endpoint and logs it (delivery-supervisor.ts). */
  disable(endpointId: string, reason: string): Promise<void>;
  /** Opens the endpoint's subscription again after `cursor` when its stream failed (delivery-supervisor.ts). */
  reopen(endpoint: WebhookEndpoint): Promise<Opened>;
  now(): number;
  random?(): number;
}

export interface EndpointWorker {
  /** Takes events from this subscription from now on (the previous one is closed). */
  follow(opened: Extract<Opened, { ok: true }>): void;
  /** Looks at the queue again (an endpoint enabled, a replay queued). */
  wake(): void;
  /** Closes the subscription and stops sending; an attempt in flight is abandoned. */
  stop(): void;
}

export function startWorker(deps: WorkerDeps, endpointId: string, shape: SubscriptionShape): EndpointWorker {
  const { store, settings, hooks, now } = deps;
  let stopped = false;
  let current: Extract<Opened, { ok: true }> | null = null;
  let sending = false;
  let wakeAgain = false;
  let sleeping: { timer: NodeJS.Timeout; resolve(): void } | null = null;
  const abort = new AbortController();
  // The retry window of a head starts at its first attempt, or at the worker's start (an endpoint enabled
  // again gets a full window).
  const startedAt = now();
  let streamFailures = 0;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        sleeping = null;
        resolve();
      }, ms);
      sleeping = { timer, resolve };
    });

  /** Queues one event; false when it is not one (an error result). Nothing is written once the worker stopped. */
  async function take(result: EventResult, source: Extract<Opened, { ok: true }>): Promise<boolean> {
    const split = result.data ? splitEvent(result.data, shape.responseKey) : null;
    if (!split?.cursor) return false;
    const seenAt = now();
    const timestamp = new Date(seenAt).toISOString();
    const delivery: Delivery = {
      id: messageId(endpointId, split.cursor),
      endpointId,
      type: shape.type,
      cursor: split.cursor,
      timestamp,
      body: JSON.stringify({ type: shape.type, timestamp, cursor: split.cursor, data: split.data }),
      seenAt,
      firstAttemptAt: null,
      status: 'PENDING',
      attempts: [],
    };
    // A replay (or a delete) stops this worker and resets the queue and the position: an event of the old
    // subscription must not land after it.
    const following = () => !stopped && current === source;
    if (!following()) return true;
    await store.enqueue(delivery);
    if (following()) await store.update(endpointId, { position: split.cursor });
    return true;
  }

  async function pump(source: Extract<Opened, { ok: true }>): Promise<void> {
    try {
      for (;;) {
        const next = await source.events.next();
        if (stopped || current !== source) return;
        if (next.done) {
          await store.update(endpointId, { completed: true });
          return;
        }
        if (!(await take(next.value, source))) {
          const message = next.value.errors?.map((e) => e.message).join('; ') ?? 'the subscription answered no event';
          return void streamFailed(message);
        }
        streamFailures = 0;
        wake();
      }
    } catch (error) {
      if (!stopped && current === source) streamFailed(error instanceof Error ? error.message : String(error));
    }
  }

  /** The stream broke (the gateway's live hub failed it): open it again after the last event taken. */
  function streamFailed(message: string): void {
    current?.close();
    current = null;
    streamFailures += 1;
    const wait = retryDelay(settings.retryBaseMs, streamFailures, deps.random);
    const timer = setTimeout(() => {
      void (async () => {
        if (stopped || current) return;
        const endpoint = await store.get(endpointId);
        if (!endpoint?.enabled) return;
        const opened = await deps.reopen(endpoint);
        if (stopped) {
          if (opened.ok) opened.close();
          return;
        }
        if (opened.ok) follow(opened);
        else await deps.disable(endpointId, `its subscription could not resume (${message}): ${opened.refusals.map((r) => r.message).join('; ')}`);
      })().catch((error: unknown) => {
        // The store did not answer (Redis down): try again later, from the same position.
        if (!stopped) streamFailed(error instanceof Error ? error.message : String(error));
      });
    }, wait);
    timer.unref();
  }

  function follow(opened: Extract<Opened, { ok: true }>): void {
    current?.close();
    current = opened;
    void pump(opened);
  }

  function wake(): void {
    if (stopped) return;
    // A wake while the loop runs may come after the loop last read the queue (an event queued as it found the
    // queue empty): remember it and look again when the loop ends, or that event would wait for the next one.
    if (sending) return void (wakeAgain = true);
    sending = true;
    wakeAgain = false;
    void sendQueue()
      .then(
        () => false,
        // The store did not answer (Redis down): the queue is looked at again after a wait.
        () => true,
      )
      .then((failed) => {
        sending = false;
        if (stopped) return;
        if (failed) setTimeout(wake, settings.retryBaseMs).unref();
        else if (wakeAgain) wake();
      });
  }

  async function sendQueue(): Promise<void> {
    for (;;) {
      if (stopped) return;
      const endpoint = await store.get(endpointId);
      if (!endpoint?.enabled) return;
      const head = await store.head(endpointId);
      if (!head) return;
      const at = now();
      const secrets = [endpoint.secret];
      if (endpoint.previousSecret && endpoint.previousSecret.until > at) secrets.push(endpoint.previousSecret.secret);
      const outcome = await deps.send({
        url: endpoint.url,
        headers: signedHeaders(secrets, head.id, new Date(at), head.body),
        body: head.body,
        timeoutMs: settings.timeoutMs,
        signal: abort.signal,
      });
      if (stopped) return;
      const accepted = outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300;
      await store.recordAttempt(endpointId, head.id, attemptRecord(at, outcome), accepted ? 'DELIVERED' : 'PENDING');
      hooks.attempt(endpointId, resultOf(outcome));
      if (accepted) {
        hooks.delivered(endpointId, now() - head.seenAt, head.attempts.length + 1);
        continue;
      }
      const windowStart = Math.max(head.firstAttemptAt ?? at, startedAt);
      if (now() - windowStart >= settings.retryForMs) {
        hooks.expired(endpointId);
        const since = new Date(windowStart).toISOString();
        await deps.disable(endpointId, `deliveries failed since ${since} (last attempt: ${describe(outcome)}); enable the endpoint to retry`);
        return;
      }
      await sleep(retryDelay(settings.retryBaseMs, head.attempts.length + 1, deps.random));
    }
  }

  return {
    follow,
    wake,
    stop() {
      stopped = true;
      current?.close();
      current = null;
      abort.abort();
      if (sleeping) {
        clearTimeout(sleeping.timer);
        sleeping.resolve();
      }
    },
  };
}

function attemptRecord(at: number, outcome: AttemptOutcome): AttemptRecord {
  return {
    at,
    statusCode: outcome.kind === 'answered' ? outcome.status : null,
    durationMs: Math.round(outcome.durationMs),
    error: outcome.kind === 'answered' ? (outcome.status >= 200 && outcome.status < 300 ? null : `HTTP ${outcome.status}`) : describe(outcome),
  };
}

function resultOf(outcome: AttemptOutcome): AttemptResult {
  if (outcome.kind === 'answered') return outcome.status >= 200 && outcome.status < 300 ? 'success' : 'http_error';
  if (outcome.kind === 'refused') return 'refused';
  return outcome.reason;
}

function describe(outcome: AttemptOutcome): string {
  if (outcome.kind === 'answered') return `HTTP ${outcome.status}`;
  if (outcome.kind === 'refused') return `refused by the address policy (${outcome.rule}): ${outcome.message}`;
  return `${outcome.reason === 'timeout' ? 'timed out' : 'connection failed'}: ${outcome.message}`;
}

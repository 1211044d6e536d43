import type { SendAttempt } from './attempt.js';
import { subscriptionShape, type SubscriptionShape } from './document.js';
import { startWorker, type DeliveryHooks, type EndpointWorker, type WorkerSettings } from './endpoint-worker.js';
import { openEndpoint, refusalText, type Opened, type SubscriptionSource } from './source.js';
import type { WebhookEndpoint, WebhookStore } from './store.js';
import { busyInterval } from '../shared/busy-interval.js';

// Which endpoints this replica delivers for, and their workers (endpoint-worker.ts): one per enabled endpoint
// whose lease it holds, started, stopped and taken over by the lease loop, and released when the process closes.

/**
 * Which replica sends an endpoint's queue: the one holding its lease (cluster/store.ts's fenced leases, the
 * live pollers' own). In one process every claim succeeds.
 */
export interface EndpointLeases {
  claim(key: string): Promise<{ token: number } | null>;
  release(key: string, token: number): Promise<void>;
}

export interface SupervisorLogger {
  warn(obj: object, msg: string): void;
}

export interface SupervisorDeps {
  store: WebhookStore;
  leases: EndpointLeases;
  /** How long a lease lasts unrenewed (LIVE_LEASE_MS): renewed three times as often. */
  leaseMs: number;
  send: SendAttempt;
  source: SubscriptionSource;
  settings: WorkerSettings;
  logger: SupervisorLogger;
  hooks?: DeliveryHooks;
  now(): number;
}

export interface DeliverySupervisor {
  /**
   * Holds a new endpoint's lease while `insert` stores it, then runs its worker on the subscription opened for
   * it; that subscription is closed when the endpoint was not stored, or another replica holds its lease.
   */
  adopt<R extends { inserted: boolean }>(
    endpoint: WebhookEndpoint,
    shape: SubscriptionShape,
    opened: Extract<Opened, { ok: true }>,
    insert: () => Promise<R>,
  ): Promise<R>;
  /**
   * Starts the endpoint's worker here if this replica holds (or now takes) its lease and none runs yet. What
   * refused its subscription, when it could not resume; the lease loop tries it again.
   */
  ensure(endpoint: WebhookEndpoint): Promise<string[] | null>;
  /** Stops the endpoint's worker here, if one runs. */
  stop(id: string): void;
  /** Has the endpoint's worker, if one runs here, look at its queue again. */
  wake(id: string): void;
  /** Endpoints whose workers run in this process (metrics). */
  running(): string[];
  close(): void;
}

const NO_HOOKS: DeliveryHooks = { attempt() {}, delivered() {}, expired() {} };

const leaseKey = (id: string) => `webhook:${id}`;

export function createDeliverySupervisor(deps: SupervisorDeps): DeliverySupervisor {
  const { store, leases, source, logger, now } = deps;
  const workers = new Map<string, EndpointWorker>();
  /** The endpoint generation each worker here started from. */
  const generations = new Map<string, number>();
  /** Lease tokens of the endpoints this replica sends. */
  const held = new Map<string, number>();
  /** Endpoints whose worker is being started: the lease loop leaves them alone. */
  const starting = new Set<string>();
  /** Whether an endpoint was left enabled without a worker since the lease loop last looked. */
  let unstarted = false;
  let closed = false;

  function stopWorker(id: string): void {
    workers.get(id)?.stop();
    workers.delete(id);
    generations.delete(id);
  }

  async function disable(endpointId: string, reason: string): Promise<void> {
    stopWorker(endpointId);
    const endpoint = await store.update(endpointId, { enabled: false, disabledReason: reason });
    if (endpoint)
      logger.warn({ webhookEndpoint: endpointId, owner: endpoint.owner, host: hostOf(endpoint.url), reason }, 'webhooks: endpoint disabled');
  }

  function run(endpoint: WebhookEndpoint, shape: SubscriptionShape, opened: Extract<Opened, { ok: true }> | null): void {
    workers.get(endpoint.id)?.stop();
    const worker = startWorker(
      {
        store,
        send: deps.send,
        settings: deps.settings,
        hooks: deps.hooks ?? NO_HOOKS,
        disable,
        reopen: (e) => openEndpoint(source, e, e.position),
        now,
      },
      endpoint.id,
      shape,
    );
    workers.set(endpoint.id, worker);
    generations.set(endpoint.id, endpoint.generation);
    loop.poke();
    if (opened) worker.follow(opened);
    worker.wake();
  }

  /** Starts an endpoint's worker from where it stopped: the subscription after its position, its queue as it is. */
  async function resume(endpoint: WebhookEndpoint): Promise<string[] | null> {
    const shape = subscriptionShape(endpoint.subscription);
    if (!shape.ok) return [shape.problem];
    if (endpoint.completed) {
      run(endpoint, shape.shape, null);
      return null;
    }
    const opened = await openEndpoint(source, endpoint, endpoint.position);
    if (!opened.ok) return opened.refusals.map(refusalText);
    run(endpoint, shape.shape, opened);
    return null;
  }

  async function ensure(endpoint: WebhookEndpoint): Promise<string[] | null> {
    if (workers.has(endpoint.id) || starting.has(endpoint.id)) return null;
    starting.add(endpoint.id);
    try {
      const lease = await leases.claim(leaseKey(endpoint.id));
      if (!lease || closed) return null;
      held.set(endpoint.id, lease.token);
      // Read again: the caller's copy may predate a replay or a change made meanwhile on any replica.
      const fresh = await store.get(endpoint.id);
      return fresh?.enabled ? await resume(fresh) : null;
    } finally {
      starting.delete(endpoint.id);
      // Not started (refused, say, as a replay's restart may be while the upstream is down): the lease loop
      // tries it again, and disables it if it is still refused, in one process as in a shared store.
      if (!workers.has(endpoint.id)) {
        unstarted = true;
        loop.poke();
      }
    }
  }

  /**
   * The lease loop: every replica renews the leases of the endpoints it sends and takes those nobody holds (a
   * new endpoint's registrant holds it from the start; a replica that died lets its leases lapse). An endpoint
   * taken over resumes its subscription after its position and sends its queue from the head, the same
   * webhook-ids, so nothing is lost and nothing is sent twice but an attempt whose answer was lost.
   */
  async function tick(): Promise<void> {
    const endpoints = await store.all();
    const known = new Map(endpoints.map((e) => [e.id, e]));
    for (const id of [...workers.keys()]) {
      const listed = known.get(id);
      if (listed?.enabled && listed.generation === generations.get(id)) continue;
      // Gone, disabled, or replayed (on another replica), unless the list is older than this worker (a replay
      // or an enable here, meanwhile): stopped, and started again below if still wanted.
      const endpoint = await store.get(id);
      if (!workers.has(id)) continue;
      if (!endpoint?.enabled || endpoint.generation !== generations.get(id)) stopWorker(id);
    }
    for (const endpoint of endpoints) {
      if (closed) return;
      if (!endpoint.enabled || starting.has(endpoint.id)) continue;
      if (!workers.has(endpoint.id)) {
        const problems = await ensure(endpoint);
        if (problems) await disable(endpoint.id, `its subscription could not resume: ${problems.join('; ')}`);
        continue;
      }
      const lease = await leases.claim(leaseKey(endpoint.id));
      if (lease) held.set(endpoint.id, lease.token);
      else {
        // Another replica took it (this one was too slow to renew): it sends from now on.
        stopWorker(endpoint.id);
        held.delete(endpoint.id);
      }
    }
  }
  let ticking = false;
  // A shared store may hold endpoints another replica lets go, so the loop always runs there; in one process
  // every endpoint's worker starts here, and with none running and none left unstarted there is nothing to
  // renew or take over.
  const loop = busyInterval(
    () => store.durable || workers.size > 0 || unstarted,
    () => {
      if (ticking || closed) return;
      ticking = true;
      const retrying = unstarted;
      unstarted = false;
      // A store that does not answer (Redis down) leaves everything as it is until the next round.
      tick()
        .catch(() => void (unstarted ||= retrying))
        .finally(() => (ticking = false));
    },
    Math.max(Math.floor(deps.leaseMs / 3), 10),
  );
  loop.poke();

  return {
    async adopt(endpoint, shape, opened, insert) {
      starting.add(endpoint.id);
      try {
        const lease = await leases.claim(leaseKey(endpoint.id));
        const stored = await insert();
        if (!stored.inserted) {
          opened.close();
          if (lease) await leases.release(leaseKey(endpoint.id), lease.token);
          return stored;
        }
        // A new key's lease is free; should another replica hold it anyway, its lease loop starts the worker there.
        if (lease) {
          held.set(endpoint.id, lease.token);
          run(endpoint, shape, opened);
        } else opened.close();
        return stored;
      } catch (error) {
        // The store did not answer: the subscription opened for it goes. The insert may have been applied all the
        // same (the client is told to read it back): the lease rounds, which go over every stored endpoint, then
        // start its worker like any other's.
        opened.close();
        throw error;
      } finally {
        starting.delete(endpoint.id);
      }
    },
    ensure,
    stop: stopWorker,
    wake(id) {
      workers.get(id)?.wake();
    },
    running: () => [...workers.keys()],
    close() {
      closed = true;
      loop.close();
      for (const worker of workers.values()) worker.stop();
      workers.clear();
      // Released, so another replica takes the endpoints over at once rather than when the leases lapse.
      for (const [id, token] of held) void leases.release(leaseKey(id), token).catch(() => undefined);
      held.clear();
    },
  };
}

/** Only the host reaches logs: a receiver's URL may carry a token of its own in its path or query. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(unreadable url)';
  }
}

import { randomUUID } from 'node:crypto';
import type { CheckEndpointUrl, SendAttempt } from './attempt.js';
import { subscriptionShape, type SubscriptionShape } from './document.js';
import { startWorker, type DeliveryHooks, type EndpointWorker, type WorkerSettings } from './endpoint-worker.js';
import { newSecret } from './signing.js';
import { openEndpoint, refusalText, type Opened, type SubscriptionSource } from './source.js';
import { ownerOf, type DeliveryPage, type Registrant, type WebhookEndpoint, type WebhookStore } from './store.js';
import { busyInterval } from '../shared/busy-interval.js';

// The webhook endpoints of one gateway process: what the GraphQL API asks of them (register, change, rotate,
// replay, delete, read) and one delivery worker per enabled endpoint (endpoint-worker.ts). Every refusal is an
// issue naming the input it concerns and the rule, which the schema answers as ValidationError.

/** How long the secret a rotation replaced keeps signing, so receivers can switch without losing a delivery. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

export interface Issue {
  path: string[];
  message: string;
}

export type Refused = { ok: false; issues: Issue[] };

export interface EndpointInput {
  url: string;
  subscription: string;
  variables: Record<string, unknown> | null;
  description: string | null;
}

export interface EndpointChanges {
  enabled?: boolean | null;
  url?: string | null;
  description?: string | null;
}

export interface WebhooksLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Which replica sends an endpoint's queue: the one holding its lease (cluster/store.ts's fenced leases, the
 * live pollers' own). In one process every claim succeeds.
 */
export interface EndpointLeases {
  claim(key: string): Promise<{ token: number } | null>;
  release(key: string, token: number): Promise<void>;
}

export interface WebhooksDeps {
  store: WebhookStore;
  leases: EndpointLeases;
  /** How long a lease lasts unrenewed (LIVE_LEASE_MS): renewed three times as often. */
  leaseMs: number;
  egress: { check: CheckEndpointUrl; send: SendAttempt };
  source: SubscriptionSource;
  settings: WorkerSettings & { maxEndpointsPerKey: number };
  logger: WebhooksLogger;
  hooks?: DeliveryHooks;
  now?(): number;
}

export interface Webhooks {
  /** Whether endpoints and pending deliveries survive a restart (false: memory mode). */
  durable: boolean;
  create(registrant: Registrant, input: EndpointInput): Promise<{ ok: true; endpoint: WebhookEndpoint; secret: string } | Refused>;
  list(owner: string): Promise<WebhookEndpoint[]>;
  /** The owner's endpoint; null for another caller's, as for an unknown id. */
  get(owner: string, id: string): Promise<WebhookEndpoint | null>;
  update(owner: string, id: string, changes: EndpointChanges): Promise<{ ok: true; endpoint: WebhookEndpoint } | Refused | null>;
  rotateSecret(owner: string, id: string): Promise<{ endpoint: WebhookEndpoint; secret: string } | null>;
  delete(owner: string, id: string): Promise<boolean>;
  deliveries(owner: string, id: string, offset: number, limit: number): Promise<DeliveryPage | null>;
  /** Sends again every event after `after` (an event cursor), in order, then live ones. */
  replay(owner: string, id: string, after: string): Promise<{ ok: true; endpoint: WebhookEndpoint } | Refused | null>;
  backlog(id: string): Promise<{ pending: number; oldestSeenAt: number | null }>;
  /** Endpoints whose workers run in this process (metrics). */
  running(): string[];
  close(): void;
}

const NO_HOOKS: DeliveryHooks = { attempt() {}, delivered() {}, expired() {} };

export function createWebhooks(deps: WebhooksDeps): Webhooks {
  const { store, egress, source, settings, logger } = deps;
  const now = deps.now ?? Date.now;
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
  const leaseKey = (id: string) => `webhook:${id}`;

  const refused = (issues: Issue[]): Refused => ({ ok: false, issues });

  const open = (endpoint: WebhookEndpoint, after: string | null): Promise<Opened> => openEndpoint(source, endpoint, after);

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

  function run(endpoint: WebhookEndpoint, shape: SubscriptionShape, opened: Extract<Opened, { ok: true }> | null): EndpointWorker {
    workers.get(endpoint.id)?.stop();
    const worker = startWorker(
      { store, send: egress.send, settings, hooks: deps.hooks ?? NO_HOOKS, disable, reopen: (e) => open(e, e.position), now },
      endpoint.id,
      shape,
    );
    workers.set(endpoint.id, worker);
    generations.set(endpoint.id, endpoint.generation);
    loop.poke();
    if (opened) worker.follow(opened);
    worker.wake();
    return worker;
  }

  /** Starts an endpoint's worker from where it stopped: the subscription after its position, its queue as it is. */
  async function resume(endpoint: WebhookEndpoint): Promise<Refused | null> {
    const shape = subscriptionShape(endpoint.subscription);
    if (!shape.ok) return refused([{ path: ['subscription'], message: shape.problem }]);
    if (endpoint.completed) {
      run(endpoint, shape.shape, null);
      return null;
    }
    const opened = await open(endpoint, endpoint.position);
    if (!opened.ok) return refused(opened.refusals.map((r) => ({ path: ['subscription'], message: refusalText(r) })));
    run(endpoint, shape.shape, opened);
    return null;
  }

  /** Starts the endpoint's worker here if this replica holds (or now takes) its lease and none runs yet. */
  async function ensure(endpoint: WebhookEndpoint): Promise<Refused | null> {
    if (workers.has(endpoint.id) || starting.has(endpoint.id)) return null;
    starting.add(endpoint.id);
    try {
      const lease = await deps.leases.claim(leaseKey(endpoint.id));
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
        const problem = await ensure(endpoint);
        if (problem) await disable(endpoint.id, `its subscription could not resume: ${problem.issues.map((i) => i.message).join('; ')}`);
        continue;
      }
      const lease = await deps.leases.claim(leaseKey(endpoint.id));
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

  const owned = async (owner: string, id: string) => {
    const endpoint = await store.get(id);
    return endpoint && endpoint.owner === owner ? endpoint : null;
  };

  return {
    durable: store.durable,
    async create(registrant, input) {
      const issues: Issue[] = [];
      const owner = ownerOf(registrant);
      // Told now beside the other issues; the store's insert below is what holds the cap under concurrency.
      const mine = await store.byOwner(owner);
      if (mine.length >= settings.maxEndpointsPerKey) issues.push(capReached(mine.length));
      const shape = subscriptionShape(input.subscription);
      if (!shape.ok) issues.push({ path: ['input', 'subscription'], message: `subscription-shape: the document ${shape.problem}` });
      const verdict = await egress.check(input.url);
      if (!verdict.ok) issues.push({ path: ['input', 'url'], message: `${verdict.rule}: ${verdict.message}` });
      if (issues.length > 0 || !shape.ok) return refused(issues);
      // The document runs once now, as the registrant: the access pipeline's validation and limits, the scopes
      // of its fields and its arguments (an unknown order) refuse it here rather than at the first event, and
      // the subscription it opens is the one the endpoint follows, so no event falls between the two.
      const opened = await openEndpoint(source, { registrant, subscription: input.subscription, variables: input.variables }, null);
      if (!opened.ok) return refused(opened.refusals.map((r) => ({ path: ['input', 'subscription'], message: refusalText(r) })));
      const secret = newSecret();
      const endpoint: WebhookEndpoint = {
        id: randomUUID(),
        owner,
        registrant: { ...registrant, scopes: [...registrant.scopes] },
        url: input.url,
        description: input.description,
        subscription: input.subscription,
        variables: input.variables,
        type: shape.shape.type,
        secret,
        previousSecret: null,
        enabled: true,
        disabledReason: null,
        createdAt: now(),
        position: null,
        completed: false,
        generation: 0,
      };
      starting.add(endpoint.id);
      try {
        const lease = await deps.leases.claim(leaseKey(endpoint.id));
        const stored = await store.insert(endpoint, settings.maxEndpointsPerKey);
        if (!stored.inserted) {
          // Another registration of the same owner took the last place meanwhile.
          opened.close();
          if (lease) await deps.leases.release(leaseKey(endpoint.id), lease.token);
          return refused([capReached(stored.owned)]);
        }
        // A new key's lease is free; should another replica hold it anyway, its lease loop starts the worker there.
        if (lease) {
          held.set(endpoint.id, lease.token);
          run(endpoint, shape.shape, opened);
        } else opened.close();
      } catch (error) {
        // The store did not answer: nothing was registered, and the subscription opened for it goes.
        opened.close();
        throw error;
      } finally {
        starting.delete(endpoint.id);
      }
      return { ok: true, endpoint, secret };
    },
    list: (owner) => store.byOwner(owner),
    get: owned,
    async update(owner, id, changes) {
      const endpoint = await owned(owner, id);
      if (!endpoint) return null;
      if (changes.url != null && changes.url !== endpoint.url) {
        const verdict = await egress.check(changes.url);
        if (!verdict.ok) return refused([{ path: ['input', 'url'], message: `${verdict.rule}: ${verdict.message}` }]);
      }
      let updated = await store.update(id, {
        ...(changes.url != null && { url: changes.url }),
        ...(changes.description !== undefined && { description: changes.description }),
      });
      if (!updated) return null;
      if (changes.enabled === false && updated.enabled) {
        stopWorker(id);
        updated = await store.update(id, { enabled: false, disabledReason: null });
      } else if (changes.enabled === true && !updated.enabled) {
        updated = await store.update(id, { enabled: true, disabledReason: null });
        const problem = updated && (await ensure(updated));
        if (problem) {
          await store.update(id, { enabled: false, disabledReason: problem.issues.map((i) => i.message).join('; ') });
          return refused(problem.issues.map((i) => ({ ...i, path: ['input', 'enabled'] })));
        }
      } else {
        workers.get(id)?.wake();
      }
      return updated ? { ok: true, endpoint: updated } : null;
    },
    async rotateSecret(owner, id) {
      const endpoint = await owned(owner, id);
      if (!endpoint) return null;
      const secret = newSecret();
      const updated = await store.update(id, { secret, previousSecret: { secret: endpoint.secret, until: now() + ROTATION_GRACE_MS } });
      return updated ? { endpoint: updated, secret } : null;
    },
    async delete(owner, id) {
      if (!(await owned(owner, id))) return false;
      stopWorker(id);
      await store.remove(id);
      return true;
    },
    async deliveries(owner, id, offset, limit) {
      return (await owned(owner, id)) ? store.deliveries(id, offset, limit) : null;
    },
    async replay(owner, id, after) {
      const endpoint = await owned(owner, id);
      if (!endpoint) return null;
      if (!endpoint.enabled) return refused([{ path: ['endpoint'], message: 'endpoint-disabled: enable the endpoint before replaying its events' }]);
      const shape = subscriptionShape(endpoint.subscription);
      if (!shape.ok) return refused([{ path: ['endpoint'], message: shape.problem }]);
      const opened = await open(endpoint, after);
      if (!opened.ok) return refused(opened.refusals.map((r) => ({ path: ['after'], message: refusalText(r) })));
      // Checked: the cursor is of this subscription and its events are still kept. The worker opens it again
      // from the stored position, on whichever replica holds the endpoint's lease.
      opened.close();
      // The queue starts again from the cursor: what was pending is among the events replayed, or was before it.
      stopWorker(id);
      await store.clearPending(id);
      const updated = await store.update(id, { position: after, completed: false, generation: endpoint.generation + 1 });
      if (!updated) return null;
      const problem = await ensure(updated);
      if (problem) return problem;
      return { ok: true, endpoint: updated };
    },
    backlog: (id) => store.backlog(id),
    running: () => [...workers.keys()],
    close() {
      closed = true;
      loop.close();
      for (const worker of workers.values()) worker.stop();
      workers.clear();
      // Released, so another replica takes the endpoints over at once rather than when the leases lapse.
      for (const [id, token] of held) void deps.leases.release(leaseKey(id), token).catch(() => undefined);
      held.clear();
    },
  };
}

/** The owner has WEBHOOK_MAX_ENDPOINTS_PER_KEY endpoints already. */
function capReached(owned: number): Issue {
  return {
    path: ['input'],
    message: `endpoint-cap: this caller already has ${owned} webhook endpoints, the most allowed (WEBHOOK_MAX_ENDPOINTS_PER_KEY); delete one first`,
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

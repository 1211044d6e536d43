import { randomUUID } from 'node:crypto';
import type { CheckEndpointUrl, SendAttempt } from './attempt.js';
import { deliveryDocument, subscriptionShape, type SubscriptionShape } from './document.js';
import { startWorker, type DeliveryHooks, type EndpointWorker, type WorkerSettings } from './endpoint-worker.js';
import { newSecret } from './signing.js';
import type { Opened, SubscriptionSource } from './source.js';
import type { DeliveryPage, Registrant, WebhookEndpoint, WebhookStore } from './store.js';

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

export interface WebhooksDeps {
  store: WebhookStore;
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

  const refused = (issues: Issue[]): Refused => ({ ok: false, issues });

  const open = (endpoint: WebhookEndpoint, after: string | null): Promise<Opened> =>
    source.open(endpoint.registrant, deliveryDocument(endpoint.subscription, after), endpoint.variables);

  async function disable(endpointId: string, reason: string): Promise<void> {
    workers.get(endpointId)?.stop();
    workers.delete(endpointId);
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

  const owned = async (owner: string, id: string) => {
    const endpoint = await store.get(id);
    return endpoint && endpoint.owner === owner ? endpoint : null;
  };

  return {
    durable: store.durable,
    async create(registrant, input) {
      const issues: Issue[] = [];
      const mine = await store.byOwner(registrant.name);
      if (mine.length >= settings.maxEndpointsPerKey) {
        issues.push({
          path: ['input'],
          message: `endpoint-cap: this caller already has ${mine.length} webhook endpoints, the most allowed (WEBHOOK_MAX_ENDPOINTS_PER_KEY); delete one first`,
        });
      }
      const shape = subscriptionShape(input.subscription);
      if (!shape.ok) issues.push({ path: ['input', 'subscription'], message: `subscription-shape: the document ${shape.problem}` });
      const verdict = await egress.check(input.url);
      if (!verdict.ok) issues.push({ path: ['input', 'url'], message: `${verdict.rule}: ${verdict.message}` });
      if (issues.length > 0 || !shape.ok) return refused(issues);
      // The document runs once now, as the registrant: the access pipeline's validation and limits, the scopes
      // of its fields and its arguments (an unknown order) refuse it here rather than at the first event, and
      // the subscription it opens is the one the endpoint follows, so no event falls between the two.
      const opened = await source.open(registrant, deliveryDocument(input.subscription, null), input.variables);
      if (!opened.ok) return refused(opened.refusals.map((r) => ({ path: ['input', 'subscription'], message: refusalText(r) })));
      const secret = newSecret();
      const endpoint: WebhookEndpoint = {
        id: randomUUID(),
        owner: registrant.name,
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
      };
      await store.insert(endpoint);
      run(endpoint, shape.shape, opened);
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
        workers.get(id)?.stop();
        workers.delete(id);
        updated = await store.update(id, { enabled: false, disabledReason: null });
      } else if (changes.enabled === true && !updated.enabled) {
        updated = await store.update(id, { enabled: true, disabledReason: null });
        const problem = updated && (await resume(updated));
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
      workers.get(id)?.stop();
      workers.delete(id);
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
      // The queue starts again from the cursor: what was pending is among the events replayed, or was before it.
      workers.get(id)?.stop();
      workers.delete(id);
      await store.clearPending(id);
      const updated = await store.update(id, { position: after, completed: false });
      if (!updated) {
        opened.close();
        return null;
      }
      run(updated, shape.shape, opened);
      return { ok: true, endpoint: updated };
    },
    backlog: (id) => store.backlog(id),
    running: () => [...workers.keys()],
    close() {
      for (const worker of workers.values()) worker.stop();
      workers.clear();
    },
  };
}

/** "FORBIDDEN: …": the error's code names the rule that refused the document. */
function refusalText(refusal: { message: string; code: string | null }): string {
  return refusal.code ? `${refusal.code}: ${refusal.message}` : refusal.message;
}

/** Only the host reaches logs: a receiver's URL may carry a token of its own in its path or query. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(unreadable url)';
  }
}

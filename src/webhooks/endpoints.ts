import { randomUUID } from 'node:crypto';
import type { CheckEndpointUrl } from './attempt.js';
import type { DeliverySupervisor } from './delivery-supervisor.js';
import { subscriptionShape } from './document.js';
import { unconfirmedWrite } from '../cluster/store-failure.js';
import { newSecret } from './signing.js';
import { openEndpoint, refusalText, type SubscriptionSource } from './source.js';
import { ownerOf, type DeliveryPage, type Registrant, type WebhookEndpoint, type WebhookStore } from './store.js';

// What the GraphQL API asks of webhook endpoints: register, change, rotate, replay, delete, read, each for the
// endpoint's owner only. Every refusal is an issue naming the input it concerns and the rule, which the schema
// answers as ValidationError. Whether and where an endpoint's deliveries run is the supervisor's to say
// (delivery-supervisor.ts): these tell it what changed.

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

export interface EndpointsDeps {
  store: WebhookStore;
  check: CheckEndpointUrl;
  source: SubscriptionSource;
  /** WEBHOOK_MAX_ENDPOINTS_PER_KEY: per owner. */
  maxEndpointsPerKey: number;
  supervisor: DeliverySupervisor;
  now(): number;
}

export interface Endpoints {
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
}

const refused = (issues: Issue[]): Refused => ({ ok: false, issues });

/** Issues at `path`, one per message. */
const issuesAt = (path: string[], messages: string[]): Issue[] => messages.map((message) => ({ path, message }));

export function createEndpoints(deps: EndpointsDeps): Endpoints {
  const { check, source, maxEndpointsPerKey, supervisor, now } = deps;
  const store = writesMarked(deps.store);

  const owned = async (owner: string, id: string) => {
    const endpoint = await store.get(id);
    return endpoint && endpoint.owner === owner ? endpoint : null;
  };

  return {
    async create(registrant, input) {
      const issues: Issue[] = [];
      const owner = ownerOf(registrant);
      // Told now beside the other issues; the store's insert below is what holds the cap under concurrency.
      const mine = await store.byOwner(owner);
      if (mine.length >= maxEndpointsPerKey) issues.push(capReached(mine.length));
      const shape = subscriptionShape(input.subscription);
      if (!shape.ok) issues.push({ path: ['input', 'subscription'], message: `subscription-shape: the document ${shape.problem}` });
      const verdict = await check(input.url);
      if (!verdict.ok) issues.push({ path: ['input', 'url'], message: `${verdict.rule}: ${verdict.message}` });
      if (issues.length > 0 || !shape.ok) return refused(issues);
      // The document runs once now, as the registrant: the access pipeline's validation and limits, the scopes
      // of its fields and its arguments (an unknown order) refuse it here rather than at the first event, and
      // the subscription it opens is the one the endpoint follows, so no event falls between the two.
      const opened = await openEndpoint(source, { registrant, subscription: input.subscription, variables: input.variables }, null);
      if (!opened.ok) return refused(issuesAt(['input', 'subscription'], opened.refusals.map(refusalText)));
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
      const stored = await supervisor.adopt(endpoint, shape.shape, opened, () => store.insert(endpoint, maxEndpointsPerKey));
      // Another registration of the same owner took the last place meanwhile.
      if (!stored.inserted) return refused([capReached(stored.owned)]);
      return { ok: true, endpoint, secret };
    },
    list: (owner) => store.byOwner(owner),
    get: owned,
    async update(owner, id, changes) {
      const endpoint = await owned(owner, id);
      if (!endpoint) return null;
      if (changes.url != null && changes.url !== endpoint.url) {
        const verdict = await check(changes.url);
        if (!verdict.ok) return refused([{ path: ['input', 'url'], message: `${verdict.rule}: ${verdict.message}` }]);
      }
      let updated = await store.update(id, {
        ...(changes.url != null && { url: changes.url }),
        ...(changes.description !== undefined && { description: changes.description }),
      });
      if (!updated) return null;
      if (changes.enabled === false && updated.enabled) {
        supervisor.stop(id);
        updated = await store.update(id, { enabled: false, disabledReason: null });
      } else if (changes.enabled === true && !updated.enabled) {
        updated = await store.update(id, { enabled: true, disabledReason: null });
        const problems = updated && (await supervisor.ensure(updated));
        if (problems) {
          await store.update(id, { enabled: false, disabledReason: problems.join('; ') });
          return refused(issuesAt(['input', 'enabled'], problems));
        }
      } else {
        supervisor.wake(id);
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
      supervisor.stop(id);
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
      const opened = await openEndpoint(source, endpoint, after);
      if (!opened.ok) return refused(issuesAt(['after'], opened.refusals.map(refusalText)));
      // Checked: the cursor is of this subscription and its events are still kept. The worker opens it again
      // from the stored position, on whichever replica holds the endpoint's lease.
      opened.close();
      // The queue starts again from the cursor: what was pending is among the events replayed, or was before it.
      supervisor.stop(id);
      await store.clearPending(id);
      const updated = await store.update(id, { position: after, completed: false, generation: endpoint.generation + 1 });
      if (!updated) return null;
      const problems = await supervisor.ensure(updated);
      if (problems) return refused(issuesAt(['subscription'], problems));
      return { ok: true, endpoint: updated };
    },
    backlog: (id) => store.backlog(id),
  };
}

/** The owner has WEBHOOK_MAX_ENDPOINTS_PER_KEY endpoints already. */
function capReached(owned: number): Issue {
  return {
    path: ['input'],
    message: `endpoint-cap: this caller already has ${owned} webhook endpoints, the most allowed (WEBHOOK_MAX_ENDPOINTS_PER_KEY); delete one first`,
  };
}

/**
 * `store` whose writes, when the store stops answering during one, fail as unconfirmed writes (store-failure.ts):
 * the change may have been saved (a created endpoint whose secret nobody was given, a rotation), so the client is
 * told to read it back rather than make it again (error-masking.ts). A read that fails first has changed nothing.
 */
function writesMarked(store: WebhookStore): WebhookStore {
  const marked =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      write(...args).catch((error: unknown) => {
        throw unconfirmedWrite(error);
      });
  return {
    ...store,
    insert: marked(store.insert),
    update: marked(store.update),
    remove: marked(store.remove),
    clearPending: marked(store.clearPending),
  };
}

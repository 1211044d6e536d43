import type { AttemptRecord, Delivery } from '../webhooks/store.js';
import { builder } from './builder.js';
import { offsetConnection } from './offset-connection.js';
import { pageWindow, toConnection } from './paging.js';
import { ownerOfCaller } from './webhook-endpoint.js';

// What happened to an endpoint's recent deliveries: each event sent, and each HTTP attempt of it.

const WebhookAttemptRef = builder.objectRef<AttemptRecord>('WebhookAttempt').implement({
  fields: (t) => ({
    at: t.field({ type: 'DateTime', resolve: (a) => new Date(a.at) }),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: "The receiver's HTTP status; null when none came." }),
    durationMs: t.exposeInt('durationMs'),
    error: t.exposeString('error', {
      nullable: true,
      description: 'Why the attempt failed: an HTTP status, a timeout, a connection failure, an address the policy refused. Null for a 2xx.',
    }),
  }),
});

const WebhookDeliveryStatus = builder.enumType('WebhookDeliveryStatus', {
  values: {
    PENDING: { description: 'Not accepted yet: waiting its turn, being retried, or its endpoint is disabled.' },
    DELIVERED: { description: 'The receiver answered 2xx.' },
  },
});

const WebhookDeliveryRef = builder.objectRef<Delivery>('WebhookDelivery').implement({
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The webhook-id header: the same for every attempt and replay of this event.' }),
    type: t.exposeString('type'),
    cursor: t.exposeString('cursor'),
    timestamp: t.field({ type: 'DateTime', resolve: (d) => new Date(d.timestamp) }),
    status: t.field({ type: WebhookDeliveryStatus, resolve: (d) => d.status }),
    attempts: t.field({
      type: [WebhookAttemptRef],
      description: 'Oldest first (of a long retry, the first and the latest).',
      resolve: (d) => d.attempts,
    }),
  }),
});

const WebhookDeliveryConnection = offsetConnection(WebhookDeliveryRef, 'WebhookDeliveryConnection');

builder.queryField('webhookDeliveries', (t) =>
  t.field({
    type: WebhookDeliveryConnection,
    nullable: true,
    authScopes: { 'webhooks:read': true },
    description: "An endpoint's recent deliveries, newest first; null for an endpoint the caller does not have.",
    args: { endpoint: t.arg.id({ required: true }), first: t.arg.int(), after: t.arg.string() },
    resolve: async (_root, { endpoint, first, after }, ctx) => {
      const window = pageWindow({ first, after });
      const page = await ctx.webhooks.deliveries(ownerOfCaller(ctx.caller), endpoint, window.offset, window.limit);
      return page ? toConnection(page.items, page.total, window) : null;
    },
  }),
);

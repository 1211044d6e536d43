import { GraphQLJSONObject } from 'graphql-scalars';
import { z } from 'zod';
import { InputValidationError, NotFound } from '../orders/errors.js';
import type { Caller } from '../security/scopes.js';
import type { Issue, Refused } from '../webhooks/endpoints.js';
import { ownerOf, type Registrant, type WebhookEndpoint } from '../webhooks/store.js';
import { builder } from './builder.js';

// Webhook endpoints: a subscription document delivered as signed POSTs to a URL (docs/webhooks.md). Each
// caller sees and changes only the endpoints it registered; registering one runs its document as the caller,
// so the scopes its fields need are checked then, beside `webhooks:write`.

builder.addScalarType('JSONObject', GraphQLJSONObject, {
  description: 'A JSON object, e.g. the variables of a subscription document.',
});

/** The endpoint's owner: the caller as webhooks/ keeps it, without its token's expiry. */
export function registrantOf(caller: Caller): Registrant {
  return {
    name: caller.name,
    scopes: [...caller.scopes],
    ...(caller.kind && { kind: caller.kind }),
    ...(caller.subject !== undefined && { subject: caller.subject }),
    ...(caller.client !== undefined && { client: caller.client }),
    ...(caller.issuer !== undefined && { issuer: caller.issuer }),
    ...(caller.trustedOnly !== undefined && { trustedOnly: caller.trustedOnly }),
  };
}

/** Whose endpoints the caller sees and changes (webhooks/store.ts's ownerOf). */
export const ownerOfCaller = (caller: Caller): string => ownerOf(registrantOf(caller));

/** A refusal of webhooks/ as the ValidationError member of a result union. */
export function asValidationError(refused: Refused | { issues: Issue[] }): InputValidationError {
  return new InputValidationError(refused.issues);
}

export const WebhookEndpointRef = builder.objectRef<WebhookEndpoint>('WebhookEndpoint').implement({
  description: 'Where the events of one subscription document are POSTed, signed per Standard Webhooks.',
  fields: (t) => ({
    id: t.exposeID('id'),
    url: t.exposeString('url'),
    description: t.exposeString('description', { nullable: true }),
    subscription: t.exposeString('subscription', { description: 'The subscription document as registered.' }),
    variables: t.field({ type: 'JSONObject', nullable: true, resolve: (endpoint) => endpoint.variables }),
    type: t.exposeString('type', { description: 'The root field of the subscription: the `type` of every payload.' }),
    enabled: t.exposeBoolean('enabled'),
    disabledReason: t.exposeString('disabledReason', {
      nullable: true,
      description: 'Why the gateway disabled the endpoint (deliveries failed for the whole retry window…); null when its owner did.',
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (endpoint) => new Date(endpoint.createdAt) }),
    position: t.exposeString('position', {
      nullable: true,
      description: 'The cursor of the newest event taken for delivery; null before the first.',
    }),
    completed: t.exposeBoolean('completed', {
      description: 'The subscription completed (e.g. every reward of the order is final): no more events will come.',
    }),
    pendingDeliveries: t.int({
      description: 'Events waiting for delivery, the one being retried included.',
      resolve: async (endpoint, _args, ctx) => (await ctx.webhooks.backlog(endpoint.id)).pending,
    }),
    previousSecretExpiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'After rotateWebhookSecret: until when the replaced secret still signs, beside the new one.',
      resolve: (endpoint) => (endpoint.previousSecret ? new Date(endpoint.previousSecret.until) : null),
    }),
  }),
});

const EndpointPayload = builder.objectRef<{ endpoint: WebhookEndpoint }>('WebhookEndpointPayload').implement({
  fields: (t) => ({ endpoint: t.field({ type: WebhookEndpointRef, resolve: (p) => p.endpoint }) }),
});

const SecretPayload = (name: string, description: string) =>
  builder.objectRef<{ endpoint: WebhookEndpoint; secret: string }>(name).implement({
    fields: (t) => ({
      secret: t.exposeString('secret', { description }),
      endpoint: t.field({ type: WebhookEndpointRef, resolve: (p) => p.endpoint }),
    }),
  });

const CreatePayload = SecretPayload(
  'CreateWebhookEndpointPayload',
  'The signing secret (`whsec_` and base64), shown this once: keep it to verify the `webhook-signature` header.',
);
const RotatePayload = SecretPayload(
  'RotateWebhookSecretPayload',
  'The new signing secret, shown this once. The old one keeps signing beside it for 24 hours (both signatures are sent).',
);

const DeletePayload = builder.objectRef<{ id: string }>('DeleteWebhookEndpointPayload').implement({
  fields: (t) => ({ id: t.exposeID('id', { description: 'The endpoint deleted, with its pending deliveries.' }) }),
});

const url = z.string().trim().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters');
const description = z.string().max(500, 'must be at most 500 characters').nullish();

const CreateInput = builder.inputType('CreateWebhookEndpointInput', {
  fields: (t) => ({
    url: t.string({ required: true, description: 'Where to POST (https outside development; public addresses only).' }),
    subscription: t.string({
      required: true,
      description: 'A subscription document (one root field, without `after`), checked now as the caller: schema, scopes, limits.',
    }),
    variables: t.field({ type: 'JSONObject', description: 'Its variables.' }),
    description: t.string(),
  }),
});

const UpdateInput = builder.inputType('UpdateWebhookEndpointInput', {
  fields: (t) => ({
    id: t.id({ required: true }),
    enabled: t.boolean({ description: 'false stops deliveries (the queue is kept); true resumes them after the last event taken.' }),
    url: t.string(),
    description: t.string(),
  }),
});

const notFound = (id: string) => new NotFound(id, 'webhook endpoint');

builder.queryField('webhookEndpoints', (t) =>
  t.field({
    type: [WebhookEndpointRef],
    authScopes: { 'webhooks:read': true },
    description: "The caller's webhook endpoints.",
    resolve: (_root, _args, ctx) => ctx.webhooks.list(ownerOfCaller(ctx.caller)),
  }),
);

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: CreatePayload,
    authScopes: { 'webhooks:write': true },
    description:
      'Registers a URL to receive every event of a subscription document as a signed POST. Refused as ValidationError ' +
      'naming the rule: a forbidden address, a document the caller may not run, the endpoint cap.',
    errors: { types: [InputValidationError] },
    args: {
      input: t.arg({
        type: CreateInput,
        required: true,
        validate: {
          schema: z.object({
            url,
            subscription: z.string().min(1, 'must not be empty').max(20_000),
            variables: z.record(z.string(), z.unknown()).nullish(),
            description,
          }),
        },
      }),
    },
    resolve: async (_root, { input }, ctx) => {
      const created = await ctx.webhooks.create(registrantOf(ctx.caller), {
        url: input.url.trim(),
        subscription: input.subscription,
        variables: input.variables ?? null,
        description: input.description ?? null,
      });
      if (!created.ok) throw asValidationError(created);
      return { endpoint: created.endpoint, secret: created.secret };
    },
  }),
  updateWebhookEndpoint: t.field({
    type: EndpointPayload,
    authScopes: { 'webhooks:write': true },
    description: 'Enables or disables an endpoint, or changes its URL or description.',
    errors: { types: [InputValidationError, NotFound] },
    args: {
      input: t.arg({
        type: UpdateInput,
        required: true,
        validate: { schema: z.object({ id: z.string(), enabled: z.boolean().nullish(), url: url.nullish(), description }) },
      }),
    },
    resolve: async (_root, { input }, ctx) => {
      const updated = await ctx.webhooks.update(ownerOfCaller(ctx.caller), input.id, {
        enabled: input.enabled,
        url: input.url?.trim(),
        description: input.description,
      });
      if (!updated) throw notFound(input.id);
      if (!updated.ok) throw asValidationError(updated);
      return { endpoint: updated.endpoint };
    },
  }),
  rotateWebhookSecret: t.field({
    type: RotatePayload,
    authScopes: { 'webhooks:write': true },
    description: 'A new signing secret; the old one keeps signing beside it for 24 hours.',
    errors: { types: [NotFound] },
    args: { endpoint: t.arg.id({ required: true }) },
    resolve: async (_root, { endpoint }, ctx) => {
      const rotated = await ctx.webhooks.rotateSecret(ownerOfCaller(ctx.caller), endpoint);
      if (!rotated) throw notFound(endpoint);
      return rotated;
    },
  }),
  deleteWebhookEndpoint: t.field({
    type: DeletePayload,
    authScopes: { 'webhooks:write': true },
    errors: { types: [NotFound] },
    args: { endpoint: t.arg.id({ required: true }) },
    resolve: async (_root, { endpoint }, ctx) => {
      if (!(await ctx.webhooks.delete(ownerOfCaller(ctx.caller), endpoint))) throw notFound(endpoint);
      return { id: endpoint };
    },
  }),
  replayWebhookEvents: t.field({
    type: EndpointPayload,
    authScopes: { 'webhooks:write': true },
    description:
      'Sends again, in order, every event after `after` (a `cursor` of an earlier payload), then live ones, with ' +
      'their original webhook-id. What was pending is dropped first. ValidationError when the events are no longer kept.',
    errors: { types: [InputValidationError, NotFound] },
    args: { endpoint: t.arg.id({ required: true }), after: t.arg.string({ required: true }) },
    resolve: async (_root, { endpoint, after }, ctx) => {
      const replayed = await ctx.webhooks.replay(ownerOfCaller(ctx.caller), endpoint, after);
      if (!replayed) throw notFound(endpoint);
      if (!replayed.ok) throw asValidationError(replayed);
      return { endpoint: replayed.endpoint };
    },
  }),
}));

import {
  IdempotencyConflict,
  InputValidationError,
  NotCancellable,
  NotFound,
  OutcomeUnknown,
  UpstreamRejected,
  UpstreamUnavailable,
  type ValidationIssueShape,
} from '../orders/errors.js';
import { builder } from './builder.js';
import { ContactRef } from './campaign.js';

// Registers the mutations' expected failures (src/orders/errors.ts) as GraphQL types. Every one implements
// `Error { message }`, so a client can always select `... on Error { message }` and stay forward compatible.

export const ErrorInterface = builder.interfaceRef<Error>('Error').implement({
  description: 'An expected failure returned as data.',
  fields: (t) => ({ message: t.exposeString('message') }),
});

const ValidationIssueRef = builder.objectRef<ValidationIssueShape>('ValidationIssue').implement({
  fields: (t) => ({
    path: t.exposeStringList('path', { description: 'Where in the input, e.g. ["input", "contacts", "2", "email"].' }),
    message: t.exposeString('message'),
  }),
});

builder.objectType(InputValidationError, {
  name: 'ValidationError',
  description: 'The input broke one or more rules; nothing was sent upstream.',
  interfaces: [ErrorInterface],
  fields: (t) => ({ issues: t.field({ type: [ValidationIssueRef], resolve: (error) => error.issues }) }),
});

builder.objectType(UpstreamRejected, {
  name: 'UpstreamRejected',
  description: 'The reward API refused the request (a 4xx other than authentication or rate limiting); its code and message say why.',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    code: t.exposeString('code', { nullable: true, description: 'Upstream error code, e.g. ERROR_CAMPAIGN_INVALID_BRAND.' }),
    status: t.exposeInt('status', { description: 'Upstream HTTP status.' }),
    contacts: t.field({
      type: [ContactRef],
      nullable: true,
      description:
        'What the upstream did with each recipient of a refused email order (e.g. ERROR_CAMPAIGN_NO_CONTACTS): ' +
        'which addresses were refused and why. Null when the upstream sent no per-recipient results.',
      resolve: (error) => error.contacts,
    }),
  }),
});

builder.objectType(NotFound, {
  name: 'NotFound',
  description: 'No order or reward is known by this ref; check the id or uuid.',
  interfaces: [ErrorInterface],
  fields: (t) => ({ ref: t.exposeID('ref') }),
});

builder.objectType(NotCancellable, {
  name: 'NotCancellable',
  description:
    'The reward or order cannot be cancelled now (a final or embedded reward, or an order whose rewards do not exist ' +
    'yet); nothing was done. The message says why.',
  interfaces: [ErrorInterface],
});

builder.objectType(IdempotencyConflict, {
  name: 'IdempotencyConflict',
  description: 'The id was already used for a different request; nothing was done. Use a new id for a new order.',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    id: t.exposeID('id'),
    conflictingFields: t.stringList({
      description:
        'Input fields in which the earlier order under this id differs from this request (deliveryType also ' +
        'when the id names an order of another kind). Empty when the difference lies in something the reward ' +
        'API does not echo (recipient names, a top-up under the same id).',
      resolve: (error) => [...error.conflictingFields],
    }),
  }),
});

builder.objectType(OutcomeUnknown, {
  name: 'OutcomeUnknown',
  description:
    'The reward API may or may not have carried the operation out (its answer was lost, failed or unreadable) ' +
    'and the gateway could not find out which. Do not report success or failure to your user yet.',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    retrySameIdIsSafe: t.exposeBoolean('retrySameIdIsSafe', {
      description:
        'True: send the very same request again (same id) until it answers; it cannot act twice. Never retry ' +
        'with a new id. False: a repeat may act twice; look at checkBefore first.',
    }),
    checkBefore: t.exposeString('checkBefore', {
      nullable: true,
      description: 'What to read before repeating the operation, when repeating is not safe.',
    }),
  }),
});

builder.objectType(UpstreamUnavailable, {
  name: 'UpstreamUnavailable',
  description:
    'The reward API has been failing and the gateway stopped calling it for a while (its circuit breaker is open); ' +
    'nothing was sent. Send the very same request again, with the same id, after retryAfterSeconds: it is made once.',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    retryAfterSeconds: t.exposeInt('retryAfterSeconds', { description: 'Seconds until the gateway asks the reward API again.' }),
  }),
});

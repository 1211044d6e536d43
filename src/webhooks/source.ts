import { deliveryDocument } from './document.js';
import type { Registrant, WebhookEndpoint } from './store.js';

// Where an endpoint's events come from: its subscription document, run through the gateway's own execution path
// (the access pipeline's validation and limits, scope checks, the live hub and its event logs) as the caller
// who registered it. The composition implements it over yoga (src/edge/webhook-subscriptions.ts); webhooks/ sits
// below it and only knows this shape.

/** One result of the subscription, as graphql-js yields it. */
export interface EventResult {
  data?: Record<string, unknown> | null;
  errors?: readonly { message: string; extensions?: Record<string, unknown> }[];
}

/** Why the document was refused, one line per error, with its code (e.g. FORBIDDEN, COST_LIMIT_EXCEEDED). */
export interface Refusal {
  message: string;
  code: string | null;
}

export type Opened = { ok: true; events: AsyncIterator<EventResult>; close(): void } | { ok: false; refusals: Refusal[] };

export interface SubscriptionSource {
  open(registrant: Registrant, query: string, variables: Record<string, unknown> | null): Promise<Opened>;
}

/** An endpoint's subscription as its registrant, its events after `after` (an event cursor; null: from now on). */
export function openEndpoint(
  source: SubscriptionSource,
  endpoint: Pick<WebhookEndpoint, 'registrant' | 'subscription' | 'variables'>,
  after: string | null,
): Promise<Opened> {
  return source.open(endpoint.registrant, deliveryDocument(endpoint.subscription, after), endpoint.variables);
}

/** "FORBIDDEN: …": the error's code names the rule that refused the document. */
export function refusalText(refusal: Refusal): string {
  return refusal.code ? `${refusal.code}: ${refusal.message}` : refusal.message;
}

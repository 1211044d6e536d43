import { createHash, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

// Standard Webhooks signing (https://www.standardwebhooks.com), with the `standardwebhooks` package rather than a
// hand-made HMAC: the signed content (`<id>.<seconds>.<body>`), the `v1,` prefix and the secret's `whsec_` form are
// exactly what receivers' verifiers expect. The secret is the only thing here that must never leave the process.

const SECRET_PREFIX = 'whsec_';
/** 32 random bytes: the upper end of the 24–64 the specification recommends. */
const SECRET_BYTES = 32;

/** A new endpoint secret, `whsec_` followed by base64: shown to the caller once, kept to sign. */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * The webhook-id of one event at one endpoint: the same for every attempt and every replay of it, so a
 * receiver that keeps the ids it has accepted never acts twice. Derived rather than random so that any replica
 * (or a replay) names the same event the same way.
 */
export function messageId(endpointId: string, cursor: string): string {
  return `msg_${createHash('sha256').update(`${endpointId}\n${cursor}`).digest('base64url').slice(0, 32)}`;
}

/**
 * The headers of one attempt. Every secret still valid signs (after a rotation the old one too, for its grace
 * period), space-separated as the specification lists several signatures, so a receiver verifies with either.
 */
export function signedHeaders(secrets: readonly string[], id: string, at: Date, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' '),
  };
}

import type { Redact } from '../redaction/redaction.js';
import { toContact } from './normalise.js';
import type { ContactResult } from './types.js';
import { wire } from './wire.js';

// A 422 from POST /campaign may carry the partial order with a result per contact: which addresses were
// refused and why. Kept on the error so a client can show the sender which address to fix.

/** The per-contact results of a refused create's body; null when the body has none (or none readable). */
export function rejectedContacts(json: unknown, redact: Redact): ContactResult[] | null {
  const parsed = wire.rejectedCampaign.safeParse(json);
  if (!parsed.success) return null;
  return parsed.data.campaign.contacts.map((c) => toContact(c, redact));
}

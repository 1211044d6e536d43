import type { DocumentBounds } from '../cluster/persisted-documents.js';

// What each caller has registered of automatic persisted queries in this process, against its bounds
// (APQ_MAX_DOCUMENTS_PER_CALLER, APQ_MAX_BYTES_PER_CALLER): the memory mode's count, and every replica's own
// while Redis, which counts in cluster mode (cluster/persisted-documents.ts), does not answer.

export interface LocalCharges {
  /** Charges `caller` for `hash` (refreshed when already charged): false when it would pass a bound. */
  admit(caller: string, hash: string, bytes: number): boolean;
}

interface Charge {
  bytes: number;
  lapsesAt: number;
}

export function createLocalCharges(bounds: DocumentBounds, ttlMs: number, now: () => number = Date.now): LocalCharges {
  const byCaller = new Map<string, Map<string, Charge>>();
  return {
    admit(caller, hash, bytes) {
      const at = now();
      const charges = byCaller.get(caller) ?? new Map<string, Charge>();
      let used = 0;
      for (const [charged, charge] of charges) {
        if (charge.lapsesAt <= at) charges.delete(charged);
        else if (charged !== hash) used += charge.bytes;
      }
      if (!charges.has(hash) && (charges.size >= bounds.maxDocuments || used + bytes > bounds.maxBytes)) {
        if (charges.size === 0) byCaller.delete(caller);
        return false;
      }
      charges.set(hash, { bytes, lapsesAt: at + ttlMs });
      byCaller.set(caller, charges);
      return true;
    },
  };
}

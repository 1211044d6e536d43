import { parsePacific } from '../upstream/pacific-time.js';
import { addDays } from './pacific-today.js';

// A reward's expiry is a calendar day; it stays claimable to the end of that day in Pacific time. Clients get
// that instant too, so none has to know the zone or its daylight-saving rules.

/**
 * The instant an expiry day ends: the following midnight, Pacific. Midnight is never inside a Pacific DST gap
 * or overlap (the clocks change at 02:00), so the wall time names exactly one instant. Null when there is no
 * expiry or it is not a date.
 */
export function expiresAt(expiry: string | null): Date | null {
  if (!expiry || !/^\d{4}-\d{2}-\d{2}$/.test(expiry)) return null;
  return parsePacific(`${addDays(expiry, 1)} 00:00:00`);
}

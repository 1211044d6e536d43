import { endOfPacificDay, isCalendarDate } from '../shared/pacific-time.js';

// A reward's expiry is a calendar day; it stays claimable to the end of that day in Pacific time. Clients get
// that instant too, so none has to know the zone or its daylight-saving rules. The sandbox expires rewards at
// the same instant because both read it from the one Pacific-time module.

/** The instant an expiry day ends (the following Pacific midnight); null when there is no expiry or it is not a date. */
export function expiresAt(expiry: string | null): Date | null {
  if (!expiry || !isCalendarDate(expiry)) return null;
  return endOfPacificDay(expiry);
}

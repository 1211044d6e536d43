// The reward API speaks Pacific wall-clock time without a zone in the string. Every conversion goes through
// date-fns-tz so that the 23- and 25-hour days around the DST changes come out right.
import { formatInTimeZone, fromZonedTime } from 'date-fns-tz';

export const PACIFIC = 'America/Los_Angeles';

const PACIFIC_DATE_TIME = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
// ISO-8601 instants must carry their zone: a zoneless ISO string would be ambiguous next to the Pacific form.
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** `yyyy-MM-dd HH:mm:ss` in Pacific time, the upstream's date-time form. */
export function formatPacific(instant: Date): string {
  return formatInTimeZone(instant, PACIFIC, 'yyyy-MM-dd HH:mm:ss');
}

/** The Pacific calendar date (`yyyy-MM-dd`) of an instant. */
export function pacificDate(instant: Date): string {
  return formatInTimeZone(instant, PACIFIC, 'yyyy-MM-dd');
}

/** True when `yyyy-MM-dd` names a real calendar day. */
export function isCalendarDate(value: string): boolean {
  const m = DATE_ONLY.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(y, mo - 1, d));
  return probe.getUTCFullYear() === y && probe.getUTCMonth() === mo - 1 && probe.getUTCDate() === d;
}

/** The instant a reward with this expiry date expires: the next Pacific midnight after that day. */
export function endOfPacificDay(date: string): Date {
  return fromZonedTime(`${shiftDate(date, 1)}T00:00:00`, PACIFIC);
}

/**
 * Calendar arithmetic on `yyyy-MM-dd`, in UTC so the host's zone (and its DST days) never leaks in. Adding a
 * year to Feb 29 gives Feb 28.
 */
export function shiftDate(date: string, days: number, years = 0): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const lastDayOfMonth = new Date(Date.UTC(y + years, m, 0)).getUTCDate();
  const shifted = new Date(Date.UTC(y + years, m - 1, Math.min(d, lastDayOfMonth) + days));
  return shifted.toISOString().slice(0, 10);
}

/**
 * Parses a date filter value: the Pacific `yyyy-MM-dd HH:mm:ss` form, a Pacific `yyyy-MM-dd` (midnight), or an
 * ISO-8601 instant with `Z` or an offset. Returns null for anything else.
 */
export function parseDateFilter(value: string): Date | null {
  const pacific = PACIFIC_DATE_TIME.exec(value);
  if (pacific) {
    if (!isCalendarDate(pacific[1]!) || !validClock(pacific[2]!)) return null;
    return fromZonedTime(`${pacific[1]}T${pacific[2]}`, PACIFIC);
  }
  if (DATE_ONLY.test(value)) return isCalendarDate(value) ? fromZonedTime(`${value}T00:00:00`, PACIFIC) : null;
  if (ISO_WITH_ZONE.test(value)) {
    const parsed = new Date(value);
    return Number.isNaN(parsed.getTime()) ? null : parsed;
  }
  return null;
}

function validClock(hms: string): boolean {
  const [h, m, s] = hms.split(':').map(Number) as [number, number, number];
  return h < 24 && m < 60 && s < 60;
}

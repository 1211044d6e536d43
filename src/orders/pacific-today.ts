import { formatPacific } from '../upstream/pacific-time.js';

// Expiry dates are calendar days in Pacific time (a reward expires at the end of that day, Pacific), so
// "in the future" and "at most a year out" are judged against today's Pacific date, not UTC's.

export function pacificToday(now: Date = new Date()): string {
  return formatPacific(now).slice(0, 10);
}

/** YYYY-MM-DD plus n days (calendar arithmetic, no time zone involved). */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

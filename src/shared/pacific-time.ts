// The reward API writes every date-time as Pacific wall-clock time, `yyyy-MM-dd HH:mm:ss`, with no zone, and
// every expiry as a Pacific calendar day. This module is the one place that converts between those and instants,
// for the gateway and the sandbox alike, so the two can never read the same text as different instants.
//
// A wall time names no instant, or two, twice a year. The rule (RFC 5545 §3.3.5, java.time, Temporal's default
// "compatible" disambiguation, and what JavaScript's own Date does with a local time):
//   - fall back (01:00–01:59 happens twice): the EARLIER instant, the first pass, still on daylight time;
//   - spring forward (02:00–02:59 never happens): read with the offset in force before the change, which lands
//     as far past the change as the text is past 02:00 (02:30 → 03:30 PDT). Reading it with the offset after the
//     change instead (date-fns-tz's fromZonedTime: 02:30 → 01:30 PST) would put a time written after 01:59:59
//     before it, so a `created_date_greater_than=…02:30:00` filter would match rewards created at 01:45.
// Offsets are looked up, never assumed: the ones in force a day before and a day after are tried, and each
// candidate is kept only if that offset is really in force at it.

export const PACIFIC = 'America/Los_Angeles';

// The zone's rules come from the platform's Intl (ICU). A date library is not needed for the two formattings
// below, and date-fns-tz loads the whole of date-fns (about 27 MB of resident memory).
const PACIFIC_PARTS = new Intl.DateTimeFormat('en-US', {
  timeZone: PACIFIC,
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

type Wall = Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string>;

/** Pacific wall-clock fields of an instant, zero-padded (seconds precision). */
function pacificWall(instant: Date): Wall {
  const wall: Wall = { year: '', month: '', day: '', hour: '', minute: '', second: '' };
  for (const { type, value } of PACIFIC_PARTS.formatToParts(instant)) if (type in wall) wall[type as keyof Wall] = value;
  wall.year = wall.year.padStart(4, '0');
  return wall;
}
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const WALL = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;
const WITH_ZONE = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;
// The sandbox's filter grammar is stricter than the gateway's reader: a `T` means ISO-8601, which must carry its
// zone, since a zoneless ISO string next to the Pacific form would be ambiguous.
const FILTER_WALL = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const FILTER_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Instant → Pacific wall time, the wire form. In the fall-back hour two instants give the same text. */
export function formatPacific(instant: Date): string {
  const w = pacificWall(instant);
  return `${w.year}-${w.month}-${w.day} ${w.hour}:${w.minute}:${w.second}`;
}

/** The Pacific calendar date (`yyyy-MM-dd`) of an instant. */
export function pacificDate(instant: Date): string {
  const w = pacificWall(instant);
  return `${w.year}-${w.month}-${w.day}`;
}

/** Today's Pacific date: expiry dates are judged against it, not against UTC's date. */
export function pacificToday(now: Date = new Date()): string {
  return pacificDate(now);
}

/**
 * Gateway's tolerant reader: Pacific wall time (`yyyy-MM-dd HH:mm:ss`; a `T` separator is tolerated) → instant.
 * A string that already carries a zone is taken as it says. Null when the text is not a date-time or names an
 * impossible day or time.
 */
export function parsePacific(text: string): Date | null {
  // The rewards of one order share their dates, and a nested read parses hundreds: recent answers are kept
  // (as numbers: every caller gets its own Date).
  const known = recentParses.get(text);
  if (known !== undefined) return known === null ? null : new Date(known);
  const s = text.trim();
  const parsed = WITH_ZONE.test(s) ? validDate(new Date(s.replace(' ', 'T'))) : wallMatchToInstant(WALL.exec(s));
  if (recentParses.size >= RECENT_PARSES_MAX) recentParses.clear();
  recentParses.set(text, parsed === null ? null : parsed.getTime());
  return parsed;
}

const RECENT_PARSES_MAX = 10_000;
const recentParses = new Map<string, number | null>();

/**
 * The sandbox's date filter values: Pacific `yyyy-MM-dd HH:mm:ss`, a Pacific `yyyy-MM-dd` (midnight), or an
 * ISO-8601 instant with `Z` or an offset. Null for anything else.
 */
export function parseDateFilter(value: string): Date | null {
  const wall = FILTER_WALL.exec(value);
  if (wall) return wallMatchToInstant(wall);
  if (DATE.test(value)) return isCalendarDate(value) ? startOfPacificDay(value) : null;
  if (FILTER_ISO.test(value)) return validDate(new Date(value));
  return null;
}

/** True when `yyyy-MM-dd` names a real calendar day. */
export function isCalendarDate(value: string): boolean {
  const m = DATE.exec(value);
  return m !== null && calendarDay(Number(m[1]), Number(m[2]), Number(m[3])) !== null;
}

/** The instant a reward with this expiry date expires: the next Pacific midnight after that day. */
export function endOfPacificDay(date: string): Date {
  return startOfPacificDay(shiftDate(date, 1));
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

/** `yyyy-MM-dd` plus n days. */
export function addDays(date: string, days: number): string {
  return shiftDate(date, days);
}

function startOfPacificDay(date: string): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return wallToInstant(Date.UTC(y, m - 1, d));
}

function wallMatchToInstant(m: RegExpExecArray | null): Date | null {
  if (!m) return null;
  const [, y, mo, d, h, mi, se] = m.map(Number) as [number, number, number, number, number, number, number];
  const day = calendarDay(y, mo, d);
  if (day === null || h > 23 || mi > 59 || se > 59) return null;
  return wallToInstant(day + ((h * 60 + mi) * 60 + se) * 1000);
}

/** Date.UTC of a day, or null when the day does not exist (Date.UTC rolls 2026-02-30 over into March). */
function calendarDay(y: number, mo: number, d: number): number | null {
  const t = Date.UTC(y, mo - 1, d);
  const check = new Date(t);
  return check.getUTCFullYear() === y && check.getUTCMonth() === mo - 1 && check.getUTCDate() === d ? t : null;
}

/** The wall time, written as if it were UTC, → the instant it names under the rule at the top of this file. */
function wallToInstant(wallAsUtc: number): Date {
  const before = pacificOffset(wallAsUtc - DAY_MS);
  const after = pacificOffset(wallAsUtc + DAY_MS);
  // A candidate is right when the offset in force at it is the one it was computed with.
  const candidates = [wallAsUtc - before, wallAsUtc - after].filter((t) => pacificOffset(t) === wallAsUtc - t).sort((a, b) => a - b);
  // Both valid: the fall-back overlap, take the earlier. None valid: the spring-forward gap, read with the
  // offset in force before the change.
  return new Date(candidates[0] ?? wallAsUtc - before);
}

function validDate(d: Date): Date | null {
  return Number.isNaN(d.getTime()) ? null : d;
}

/**
 * Pacific's offset from UTC at an instant, in ms (-8 h in winter). The zone changes offset only at the start
 * of a UTC hour (02:00 local is 10:00 or 09:00 UTC), so one Intl formatting per UTC hour is exact: parsing a
 * date-time used to format four times, the gateway's largest CPU cost when reading rewards.
 */
const offsetByHour = new Map<number, number>();
function pacificOffset(instant: number): number {
  const start = Math.floor(instant / HOUR_MS) * HOUR_MS;
  let offset = offsetByHour.get(start);
  if (offset === undefined) {
    const w = pacificWall(new Date(start));
    offset = Date.UTC(Number(w.year), Number(w.month) - 1, Number(w.day), Number(w.hour), Number(w.minute), Number(w.second)) - start;
    if (offsetByHour.size >= 10_000) offsetByHour.clear();
    offsetByHour.set(start, offset);
  }
  return offset;
}

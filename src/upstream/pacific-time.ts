// The reward API writes every date-time as Pacific wall-clock time, `yyyy-MM-dd HH:mm:ss`, with no zone. Turning
// that into an instant is ambiguous twice a year, so the rule is explicit here (the same one as RFC 5545,
// java.time and Temporal's "compatible" disambiguation):
//   - fall back (01:00–01:59 happens twice): the EARLIER instant, i.e. the first pass, still on daylight time;
//   - spring forward (02:00–02:59 never happens): shifted forward by the gap, 02:30 → 03:30 PDT.
// date-fns-tz's fromZonedTime gets the gap wrong (it moves 02:30 back to 01:30 PST), so the offsets in force a
// day before and after are tried here, and each candidate is kept only if that offset is in force at it.

// The zone's rules come from the platform's Intl (ICU, as date-fns-tz used them): importing date-fns-tz loads
// the whole of date-fns, about 27 MB of resident memory, for the two formattings below.
const PACIFIC_PARTS = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Los_Angeles',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** Pacific wall-clock fields of an instant, zero-padded (seconds precision). */
function pacificWall(instant: Date): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string> {
  const wall = { year: '', month: '', day: '', hour: '', minute: '', second: '' };
  for (const { type, value } of PACIFIC_PARTS.formatToParts(instant)) if (type in wall) wall[type as keyof typeof wall] = value;
  wall.year = wall.year.padStart(4, '0');
  return wall;
}
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

const WALL = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;
const WITH_ZONE = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Pacific wall time (`yyyy-MM-dd HH:mm:ss`; a `T` separator is tolerated) → instant. A string that already
 * carries a zone is taken as it says. Returns null when the text is not a date-time or names an impossible day.
 */
export function parsePacific(text: string): Date | null {
  // The rewards of one order share their dates, and a nested read parses hundreds: recent answers are kept
  // (as instants: every caller gets its own Date).
  const known = recent.get(text);
  if (known !== undefined) return known === null ? null : new Date(known);
  const parsed = parseUncached(text);
  if (recent.size >= RECENT_MAX) recent.clear();
  recent.set(text, parsed === null ? null : parsed.getTime());
  return parsed;
}

const RECENT_MAX = 10_000;
const recent = new Map<string, number | null>();

function parseUncached(text: string): Date | null {
  const s = text.trim();
  if (WITH_ZONE.test(s)) {
    const d = new Date(s.replace(' ', 'T'));
    return Number.isNaN(d.getTime()) ? null : d;
  }
  const m = WALL.exec(s);
  if (!m) return null;
  const [, y, mo, d, h, mi, se] = m.map(Number) as [number, number, number, number, number, number, number];
  const wallAsUtc = Date.UTC(y, mo - 1, d, h, mi, se);
  // Date.UTC rolls 2026-02-30 over into March; a roll-over means the day does not exist.
  const check = new Date(wallAsUtc);
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || se > 59) return null;

  const before = pacificOffset(wallAsUtc - DAY_MS);
  const after = pacificOffset(wallAsUtc + DAY_MS);
  // A candidate is right when the offset in force at it is the one it was computed with (it formats back to
  // the same wall time).
  const candidates = [wallAsUtc - before, wallAsUtc - after].filter((t) => pacificOffset(t) === wallAsUtc - t).sort((a, b) => a - b);
  // Both valid: the fall-back overlap, take the earlier. None valid: the spring-forward gap, read the wall time
  // with the offset in force before the change, which lands the same distance past the change.
  return new Date(candidates[0] ?? wallAsUtc - before);
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

/** Instant → Pacific wall time for query parameters. In the fall-back hour two instants give the same text. */
export function formatPacific(date: Date): string {
  const w = pacificWall(date);
  return `${w.year}-${w.month}-${w.day} ${w.hour}:${w.minute}:${w.second}`;
}

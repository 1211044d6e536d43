// The one Pacific-time module behind every date on the wire, gateway and sandbox alike, around both DST changes.
import { describe, expect, it } from 'vitest';
import { endOfPacificDay, formatPacific, isCalendarDate, pacificDate, parseDateFilter, parsePacific, shiftDate } from '../src/shared/pacific-time.js';

describe('Pacific wall time ↔ instant', () => {
  it('reads standard and daylight time with their own offsets', () => {
    expect(parsePacific('2026-01-15 12:00:00')?.toISOString()).toBe('2026-01-15T20:00:00.000Z');
    expect(parsePacific('2026-07-01 12:00:00')?.toISOString()).toBe('2026-07-01T19:00:00.000Z');
  });

  it('spring forward: the skipped 02:30 lands 03:30 PDT, an hour past 01:30 PST', () => {
    expect(parsePacific('2026-03-08 01:59:59')?.toISOString()).toBe('2026-03-08T09:59:59.000Z');
    expect(parsePacific('2026-03-08 02:30:00')?.toISOString()).toBe('2026-03-08T10:30:00.000Z');
    expect(parsePacific('2026-03-08 03:00:00')?.toISOString()).toBe('2026-03-08T10:00:00.000Z');
    expect(parsePacific('2026-03-08 03:30:00')?.toISOString()).toBe('2026-03-08T10:30:00.000Z');
  });

  it('fall back: the repeated 01:30 is read as its first pass (PDT), 02:00 as PST', () => {
    expect(parsePacific('2026-11-01 00:59:59')?.toISOString()).toBe('2026-11-01T07:59:59.000Z');
    expect(parsePacific('2026-11-01 01:30:00')?.toISOString()).toBe('2026-11-01T08:30:00.000Z');
    expect(parsePacific('2026-11-01 02:00:00')?.toISOString()).toBe('2026-11-01T10:00:00.000Z');
  });

  it('takes a zoned ISO string as it says and tolerates a T separator', () => {
    expect(parsePacific('2026-07-01T12:00:00Z')?.toISOString()).toBe('2026-07-01T12:00:00.000Z');
    expect(parsePacific('2026-07-01T12:00:00-07:00')?.toISOString()).toBe('2026-07-01T19:00:00.000Z');
    expect(parsePacific('2026-07-01T12:00:00')?.toISOString()).toBe('2026-07-01T19:00:00.000Z');
  });

  it('refuses impossible days and non-dates', () => {
    expect(parsePacific('2026-02-30 10:00:00')).toBeNull();
    expect(parsePacific('2026-01-01 24:00:00')).toBeNull();
    expect(parsePacific('yesterday')).toBeNull();
  });

  it('formats instants as Pacific wall time and round-trips outside the fall-back hour', () => {
    expect(formatPacific(new Date('2026-03-08T10:30:00Z'))).toBe('2026-03-08 03:30:00');
    expect(formatPacific(new Date('2026-11-01T08:30:00Z'))).toBe('2026-11-01 01:30:00');
    expect(formatPacific(new Date('2026-11-01T09:30:00Z'))).toBe('2026-11-01 01:30:00');
    for (const s of ['2026-01-15 12:00:00', '2026-03-08 03:00:00', '2026-07-01 00:00:00', '2026-12-31 23:59:59']) {
      expect(formatPacific(parsePacific(s)!)).toBe(s);
    }
  });
});

describe('parsePacific across whole DST-change days (the per-hour offset cache)', () => {
  const pad = (n: number) => String(n).padStart(2, '0');
  it.each(['2026-03-08', '2026-11-01', '2027-03-14', '2027-11-07'])('every minute of %s round-trips, or moves forward by the gap', (day) => {
    for (let minute = 0; minute < 24 * 60; minute++) {
      const wall = `${day} ${pad(Math.floor(minute / 60))}:${pad(minute % 60)}:00`;
      const instant = parsePacific(wall)!;
      const back = formatPacific(instant);
      if (back !== wall) {
        // Only the spring-forward gap (02:00–02:59, which never happens) may read differently: one hour later.
        expect(wall.slice(11, 13), wall).toBe('02');
        expect(back, wall).toBe(`${day} 03:${wall.slice(14)}`);
      }
    }
  });
});

describe('pacific time', () => {
  it('formats instants as Pacific wall-clock time in both offsets', () => {
    expect(formatPacific(new Date('2026-01-15T20:30:05Z'))).toBe('2026-01-15 12:30:05');
    expect(formatPacific(new Date('2026-07-15T20:30:05Z'))).toBe('2026-07-15 13:30:05');
    expect(pacificDate(new Date('2026-07-16T06:59:59Z'))).toBe('2026-07-15');
    expect(pacificDate(new Date('2026-07-16T07:00:00Z'))).toBe('2026-07-16');
  });

  it('ends a day at the next Pacific midnight, across the 23- and 25-hour days', () => {
    expect(endOfPacificDay('2026-03-08').toISOString()).toBe('2026-03-09T07:00:00.000Z');
    expect(endOfPacificDay('2026-03-07').toISOString()).toBe('2026-03-08T08:00:00.000Z');
    expect(endOfPacificDay('2026-11-01').toISOString()).toBe('2026-11-02T08:00:00.000Z');
    expect(endOfPacificDay('2026-10-31').toISOString()).toBe('2026-11-01T07:00:00.000Z');
    expect(endOfPacificDay('2026-12-31').toISOString()).toBe('2027-01-01T08:00:00.000Z');
  });

  it('parses date filters in the Pacific form, date-only, and ISO-8601 with a zone', () => {
    expect(parseDateFilter('2026-03-08 03:00:00')?.toISOString()).toBe('2026-03-08T10:00:00.000Z');
    expect(parseDateFilter('2026-03-08 01:59:59')?.toISOString()).toBe('2026-03-08T09:59:59.000Z');
    expect(parseDateFilter('2026-11-01')?.toISOString()).toBe('2026-11-01T07:00:00.000Z');
    expect(parseDateFilter('2026-11-01T12:00:00Z')?.toISOString()).toBe('2026-11-01T12:00:00.000Z');
    expect(parseDateFilter('2026-11-01T12:00:00.250-08:00')?.toISOString()).toBe('2026-11-01T20:00:00.250Z');
    for (const bad of ['2026-11-01T12:00:00', '2026-02-29 10:00:00', '2026-01-01 24:00:00', 'yesterday', '', '1700000000']) {
      expect(parseDateFilter(bad), bad).toBeNull();
    }
  });

  it('does calendar arithmetic independent of the host zone', () => {
    expect(shiftDate('2026-02-28', 1)).toBe('2026-03-01');
    expect(shiftDate('2028-02-29', 0, 1)).toBe('2029-02-28');
    expect(shiftDate('2026-03-08', 1)).toBe('2026-03-09');
    expect(shiftDate('2026-11-01', -1)).toBe('2026-10-31');
    expect(shiftDate('2026-12-31', 1)).toBe('2027-01-01');
    expect(shiftDate('2026-11-21', 0, 1)).toBe('2027-11-21');
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2027-02-29')).toBe(false);
    expect(isCalendarDate('2027-2-9')).toBe(false);
  });
});

describe('one rule for the gateway and the sandbox', () => {
  it('reads a wall time in the spring-forward gap as the same instant on both sides', () => {
    // 02:30 on 2026-03-08 never happens in Pacific time; both sides read it with the offset before the change.
    expect(parseDateFilter('2026-03-08 02:30:00')?.toISOString()).toBe('2026-03-08T10:30:00.000Z');
    expect(parsePacific('2026-03-08 02:30:00')?.toISOString()).toBe('2026-03-08T10:30:00.000Z');
  });

  it('reads a wall time in the fall-back overlap as its first pass on both sides', () => {
    expect(parseDateFilter('2026-11-01 01:30:00')?.toISOString()).toBe('2026-11-01T08:30:00.000Z');
    expect(parsePacific('2026-11-01 01:30:00')?.toISOString()).toBe('2026-11-01T08:30:00.000Z');
  });
});

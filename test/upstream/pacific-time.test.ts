import { describe, expect, it } from 'vitest';
import { formatPacific, parsePacific } from '../../src/upstream/pacific-time.js';

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

// The Pacific-time helpers behind every date on the wire, around both DST changes.
import { describe, expect, it } from 'vitest';
import { endOfPacificDay, formatPacific, isCalendarDate, pacificDate, parseDateFilter, shiftDate } from '../../src/sandbox/pacific.js';

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

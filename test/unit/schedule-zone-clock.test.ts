import { describe, expect, it } from 'vitest';
import { daysInMonth } from '../../src/parse/days-in-month';
import { ZoneClock } from '../../src/schedule/zone-clock';

/*
 * ZoneClock.date() must resolve wall times exactly like Go's time.Date, which the Temporal server uses:
 * that choice is what makes Temporal's DST behaviour differ east and west of UTC.
 */

const iso = (sec: number) => new Date(sec * 1000).toISOString().replace('.000Z', 'Z');

describe('ZoneClock.date: wall time to instant, as Go does it', () => {
  const CASES: [string, string, [number, number, number, number, number, number], string][] = [
    ['an ordinary time', 'Europe/Paris', [2027, 1, 15, 9, 30, 0], '2027-01-15T08:30:00Z'],
    ['fields carry over (day 32)', 'UTC', [2027, 1, 32, 0, 0, 0], '2027-02-01T00:00:00Z'],
    ['hour 24 is the next midnight', 'UTC', [2027, 1, 1, 24, 0, 0], '2027-01-02T00:00:00Z'],
    // DST, repeated hour: Go reads the offset at the wall time taken as UTC, then corrects once.
    [
      'repeated time east of UTC: the second one (CET)',
      'Europe/Paris',
      [2026, 10, 25, 2, 30, 0],
      '2026-10-25T01:30:00Z',
    ],
    [
      'repeated time west of UTC: the first one (EDT)',
      'America/New_York',
      [2026, 11, 1, 1, 30, 0],
      '2026-11-01T05:30:00Z',
    ],
    // DST, gap: the result is a real instant in another hour, which is how Temporal knows to skip it.
    [
      'gap east of UTC moves forward (02:30 -> 03:30)',
      'Europe/Paris',
      [2027, 3, 28, 2, 30, 0],
      '2027-03-28T01:30:00Z',
    ],
    [
      'gap west of UTC moves back (02:30 -> 01:30)',
      'America/New_York',
      [2027, 3, 14, 2, 30, 0],
      '2027-03-14T06:30:00Z',
    ],
    [
      '30-minute gap stays in the hour (02:15 -> 02:45)',
      'Australia/Lord_Howe',
      [2026, 10, 4, 2, 15, 0],
      '2026-10-03T15:45:00Z',
    ],
  ];

  it.each(CASES)('%s (%s)', (_name, zone, [y, mo, d, h, mi, s], expected) => {
    expect(iso(new ZoneClock(zone).date(y, mo, d, h, mi, s))).toBe(expected);
  });

  it('reads wall times back with the day of the week', () => {
    expect(new ZoneClock('Asia/Kolkata').wall(Date.parse('2027-01-03T20:00:00Z') / 1000)).toEqual({
      y: 2027,
      mo: 1,
      d: 4,
      h: 1,
      mi: 30,
      s: 0,
      dow: 1, // Monday
    });
  });

  it.each([
    [2, 2028, 29],
    [2, 2100, 28], // divisible by 100, not by 400
    [2, 2000, 29],
    [4, 2027, 30],
    [12, 2027, 31],
  ])('month %i of %i has %i days', (mo, y, days) => {
    expect(daysInMonth(mo, y)).toBe(days);
  });
});

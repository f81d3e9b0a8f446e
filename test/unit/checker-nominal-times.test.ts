import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { dayFields } from '../checker/day-forms';
import type { DayForm } from '../checker/generator';
import { cronOf, nominalTimes, type ModelTrigger } from '../checker/nominal-times';

/*
 * The checker's own model of the nominal times (test/checker/nominal-times.ts), against times worked out
 * by hand from the calendar (2026-12-04 is a Friday; Paris is UTC+1 in December, Lord Howe UTC+11).
 */

const ms = (iso: string) => Date.parse(iso);
const times = (t: ModelTrigger, from: string, to: string) =>
  nominalTimes(t, ms(from), ms(to)).map((x) => new Date(x).toISOString());
const cron = (c: Partial<Extract<ModelTrigger, { kind: 'cron' }>>): ModelTrigger => ({
  kind: 'cron',
  zone: 'Europe/Paris',
  stepS: 5,
  hours: null,
  dom: '*',
  dow: '*',
  ...c,
});

describe("the checker's nominal-time model", () => {
  it('counts intervals from 1970 and takes a one-off to its second', () => {
    expect(times({ kind: 'interval', everyS: 7 }, '2026-12-04T14:00:00Z', '2026-12-04T14:00:16Z')).toEqual([
      '2026-12-04T14:00:01.000Z',
      '2026-12-04T14:00:08.000Z',
      '2026-12-04T14:00:15.000Z',
    ]);
    expect(times({ kind: 'calendar', stepS: 4 }, '2026-12-04T14:00:56Z', '2026-12-04T14:01:04Z')).toEqual([
      '2026-12-04T14:01:00.000Z',
      '2026-12-04T14:01:04.000Z',
    ]);
    expect(
      times(
        { kind: 'once', at: ms('2026-12-04T14:00:05.300Z') },
        '2026-12-04T14:00:00Z',
        '2026-12-04T14:01:00Z',
      ),
    ).toEqual(['2026-12-04T14:00:05.000Z']);
  });

  it('reads a cron in its zone: seconds, local hours', () => {
    expect(times(cron({}), '2026-12-04T14:00:00Z', '2026-12-04T14:00:12Z')).toEqual([
      '2026-12-04T14:00:05.000Z',
      '2026-12-04T14:00:10.000Z',
    ]);
    // 14:00 UTC is 15:00 in Paris: hour 15 fires, hour 14 does not.
    expect(times(cron({ hours: [15, 18] }), '2026-12-04T14:00:00Z', '2026-12-04T14:00:06Z')).toHaveLength(1);
    expect(times(cron({ hours: [14] }), '2026-12-04T14:00:00Z', '2026-12-04T14:00:06Z')).toEqual([]);
  });

  it.each([
    // [dom, dow, fires on Friday 2026-12-04 in Paris]
    ['5W', '*', true], // Saturday the 5th: its nearest weekday is Friday the 4th
    ['4W', '*', true],
    ['7W', '*', false], // Monday the 7th
    ['L-27', '*', true], // 31 - 27
    ['L-26', '*', false],
    ['*', 'FRI#1', true],
    ['*', 'FRI#2', false],
    ['*', 'FRIL', false], // the last Friday is the 25th
    ['*', 'THU#1', false],
  ])('reads the Quartz day form dom %s dow %s (fires: %s)', (dom, dow, fires) => {
    const got = times(cron({ dom, dow }), '2026-12-04T10:00:00Z', '2026-12-04T10:00:10Z');
    expect(got).toHaveLength(fires ? 2 : 0);
  });

  it('reads the day in the zone: at 14:00 UTC it is already Saturday the 5th in Lord Howe', () => {
    const lh = (dom: string, dow: string) =>
      times(cron({ zone: 'Australia/Lord_Howe', dom, dow }), '2026-12-04T14:00:00Z', '2026-12-04T14:00:10Z');
    expect(lh('5W', '*')).toEqual([]);
    expect(lh('*', 'SAT#1')).toHaveLength(2);
    expect(lh('L-26', '*')).toHaveLength(2);
  });

  it('applies a DST policy around a repeated hour (Paris, 2026-10-25, 03:00 CEST -> 02:00 CET)', () => {
    const paris = (overlap: 'once' | 'twice'): ModelTrigger => ({
      kind: 'dst',
      zone: 'Europe/Paris',
      minutes: [0, 30],
      policy: { gap: 'skip', overlap },
    });
    // 02:30 CEST is 00:30 UTC; 02:00 and 02:30 CET (01:00, 01:30 UTC) are the second occurrences.
    expect(times(paris('once'), '2026-10-25T00:20:00Z', '2026-10-25T01:40:00Z')).toEqual([
      '2026-10-25T00:30:00.000Z',
    ]);
    expect(times(paris('twice'), '2026-10-25T00:20:00Z', '2026-10-25T01:40:00Z')).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-25T01:00:00.000Z',
      '2026-10-25T01:30:00.000Z',
    ]);
  });

  it('applies a DST policy around a gap (New York, 2026-03-08, 02:00 EST -> 03:00 EDT)', () => {
    const ny = (gap: 'skip' | 'shift'): ModelTrigger => ({
      kind: 'dst',
      zone: 'America/New_York',
      minutes: [30],
      policy: { gap, overlap: 'once' },
    });
    // 01:30 EST = 06:30 UTC; 02:30 does not exist (shift: 03:00 EDT = 07:00 UTC); 03:30 EDT = 07:30 UTC.
    expect(times(ny('shift'), '2026-03-08T06:00:00Z', '2026-03-08T08:00:00Z')).toEqual([
      '2026-03-08T06:30:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-08T07:30:00.000Z',
    ]);
    expect(times(ny('skip'), '2026-03-08T06:00:00Z', '2026-03-08T08:00:00Z')).toEqual([
      '2026-03-08T06:30:00.000Z',
      '2026-03-08T07:30:00.000Z',
    ]);
  });

  it('writes the cron in the project dialect', () => {
    expect(cronOf({ kind: 'cron', zone: 'UTC', stepS: 5, hours: [1, 4], dom: '5W', dow: '*' })).toBe(
      '*/5 * 1,4 5W * * *',
    );
    expect(
      cronOf({ kind: 'dst', zone: 'UTC', minutes: [0, 30], policy: { gap: 'skip', overlap: 'once' } }),
    ).toBe('0,30 * * * *');
  });

  it.each([
    // [local day, form, dom, dow, fires that day]
    ['2026-12-04', 'W', '5W', '*', true], // a Friday: the weekday nearest Saturday the 5th
    ['2026-12-07', 'W', '6W', '*', true], // a Monday: the weekday nearest Sunday the 6th
    ['2026-12-09', 'W', '9W', '*', true],
    ['2026-12-05', 'W', '5W', '*', false], // a Saturday: 5W is Friday the 4th
    ['2027-03-01', 'W', '1W', '*', true], // a Monday the 1st: 1W never leaves its month
    ['2026-07-31', 'W', '31W', '*', true], // a Friday the 31st
    ['2026-12-04', 'L-', 'L-27', '*', true],
    ['2026-12-31', 'L-', 'L-0', '*', true],
    ['2026-12-04', '#', '*', 'FRI#1', true],
    ['2026-12-31', '#', '*', 'THU#5', true],
    ['2026-12-25', 'L', '*', 'FRIL', true],
    ['2026-12-04', 'L', '*', 'FRIL', false], // the last Friday is the 25th: silent all day
  ] as const)('resolves %s %s to dom %s dow %s, firing that day: %s', (day, form, dom, dow, fires) => {
    const noon = DateTime.fromISO(`${day}T12:00:00`, { zone: 'Europe/Paris' });
    expect(dayFields(form as DayForm, noon)).toEqual({ dom, dow });
    const t = noon.toMillis();
    expect(nominalTimes(cron({ dom, dow }), t, t + 10_000)).toHaveLength(fires ? 2 : 0);
  });
});

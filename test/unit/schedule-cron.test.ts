import { describe, expect, it } from 'vitest';
import { compileCalendars } from '../../src/schedule/calendar';
import { compileTrigger } from '../../src/schedule/compile-trigger';
import type { CalendarFieldName } from '../../src/schedule/cron-fields';
import { parseCron, validateCron } from '../../src/schedule/cron';
import { rangeValues } from '../../src/schedule/field-parse';

/*
 * What a cron string or a calendar means, field by field, in Temporal's dialect (the values each field
 * matches once parsed). Fields not listed in a case are checked against Temporal's defaults.
 */

const ALL = (min: number, max: number) => Array.from({ length: max - min + 1 }, (_, i) => min + i);
const DEFAULTS: Record<CalendarFieldName, number[]> = {
  second: [0],
  minute: [0],
  hour: [0],
  dayOfMonth: ALL(1, 31),
  month: ALL(1, 12),
  dayOfWeek: ALL(0, 6),
  year: [], // every year
};

function meaning(
  calendar: Record<CalendarFieldName, readonly { start: number; end: number; step: number }[]>,
) {
  return Object.fromEntries(
    (Object.keys(DEFAULTS) as CalendarFieldName[]).map((k) => [k, rangeValues(calendar[k])]),
  );
}

const CRON_CASES: [string, Partial<Record<CalendarFieldName, number[]>>][] = [
  ['0 2 * * *', { hour: [2] }],
  ['*/15 * * * *', { minute: [0, 15, 30, 45], hour: ALL(0, 23) }],
  ['0 9 * * MON-FRI', { hour: [9], dayOfWeek: [1, 2, 3, 4, 5] }],
  ['0 9 * * mon,Wed,FRIDAY', { hour: [9], dayOfWeek: [1, 3, 5] }],
  ['0 9 * * 0', { hour: [9], dayOfWeek: [0] }],
  ['0 9 * * 7', { hour: [9], dayOfWeek: [0] }], // Sunday as 7
  ['0 9 * * 5-7', { hour: [9], dayOfWeek: [0, 5, 6] }],
  ['0 9 * * 1-7/2', { hour: [9], dayOfWeek: [0, 1, 3, 5] }],
  ['0 9 * * 0-7', { hour: [9], dayOfWeek: ALL(0, 6) }],
  ['0 0 1 JAN,jul *', { dayOfMonth: [1], month: [1, 7] }],
  ['0 0 10/7 * *', { dayOfMonth: [10, 17, 24, 31] }], // a single value with a step runs to the end
  ['0 8-18/2 * * *', { hour: [8, 10, 12, 14, 16, 18] }],
  ['@hourly', { hour: ALL(0, 23) }],
  ['@weekly', { dayOfWeek: [0] }],
  ['@monthly', { dayOfMonth: [1] }],
  ['@yearly', { dayOfMonth: [1], month: [1] }],
  ['*/20 30 12 * * * 2027', { second: [0, 20, 40], minute: [30], hour: [12], year: [2027] }],
  ['0 0 0 29 FEB * 2028-2036/4', { dayOfMonth: [29], month: [2], year: [2028, 2032, 2036] }],
];

describe('cron strings mean what Temporal reads', () => {
  it.each(CRON_CASES)('%s', (cron, fields) => {
    expect(meaning(parseCron(cron).calendars[0] as never)).toEqual({ ...DEFAULTS, ...fields });
  });

  it('normalises spaces and keeps aliases as Temporal takes them', () => {
    expect(validateCron('  0   2 * *  * ')).toBe('0 2 * * *');
    expect(validateCron('@daily')).toBe('@daily');
  });

  it('sends the string itself to Temporal (the server parses it)', () => {
    expect(compileTrigger({ cron: ['0 9 * * MON', '@daily'], timezone: 'Europe/Paris' }, 'UTC').spec).toEqual(
      {
        cronExpressions: ['0 9 * * MON', '@daily'],
        timezone: 'Europe/Paris',
      },
    );
  });
});

describe('calendar triggers compile to the SDK CalendarSpec with explicit ranges', () => {
  it('numbers, names, expressions, range objects and lists', () => {
    const [compiled] = compileCalendars({
      minute: '*/30',
      hour: [9, '17'],
      dayOfWeek: { start: 'MON', end: 'FRIDAY' },
      month: ['JAN', 'jul'],
      comment: 'office hours',
    });
    expect(compiled!.spec).toEqual({
      minute: [{ start: 0, end: 59, step: 30 }],
      hour: [
        { start: 9, end: 9, step: 1 },
        { start: 17, end: 17, step: 1 },
      ],
      dayOfWeek: [{ start: 'MONDAY', end: 'FRIDAY', step: 1 }],
      month: [
        { start: 'JANUARY', end: 'JANUARY', step: 1 },
        { start: 'JULY', end: 'JULY', step: 1 },
      ],
      comment: 'office hours',
    });
    expect(meaning(compiled!.calendar as never)).toEqual({
      ...DEFAULTS,
      minute: [0, 30],
      hour: [9, 17],
      dayOfWeek: [1, 2, 3, 4, 5],
      month: [1, 7],
    });
  });

  it('Sunday as 7 becomes SUNDAY, as the server stores it (0-6)', () => {
    const [compiled] = compileCalendars({ dayOfWeek: 7, hour: 9 });
    expect(compiled!.spec.dayOfWeek).toEqual([{ start: 'SUNDAY', end: 'SUNDAY', step: 1 }]);
  });

  it('"*" for a year is every year', () => {
    const [compiled] = compileCalendars({ year: '*', month: 'FEB', dayOfMonth: 29 });
    expect(compiled!.spec.year).toBe('*');
    expect(compiled!.calendar.year).toEqual([]);
  });

  it('a list of calendars fires when any matches', () => {
    const compiled = compileTrigger(
      {
        calendar: [
          { hour: 8, dayOfWeek: 'MON' },
          { hour: 20, dayOfMonth: 15 },
        ],
        timezone: 'Asia/Kolkata',
      },
      'UTC',
    );
    expect(compiled.kind).toBe('calendar');
    expect(compiled.spec.calendars).toHaveLength(2);
    expect(compiled.spec.timezone).toBe('Asia/Kolkata');
  });
});

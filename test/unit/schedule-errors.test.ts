import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, TemporalFlowError } from '../../src/errors';
import { compileTrigger, validateTimezone } from '../../src/schedule/compile-trigger';
import { InvalidPolicyError, InvalidTriggerError } from '../../src/schedule/errors';
import { compilePolicies, type JobPolicies } from '../../src/schedule/policies';
import { previewTrigger } from '../../src/schedule/preview';
import type { Trigger } from '../../src/schedule/trigger-types';

/*
 * Every bad input gets a typed error naming the option (`field`) and a message saying what was wrong and
 * what to write instead. The messages are part of the contract: they are pinned here in full.
 */

interface BadCase {
  name: string;
  run: () => unknown;
  error: typeof InvalidArgumentError;
  field: string;
  message: string;
}

const trigger = (t: unknown) => () => compileTrigger(t as Trigger, 'UTC');
const cron = (c: string) => trigger({ cron: c });
const policies = (p: unknown) => () => compilePolicies(p as JobPolicies);
const T = InvalidTriggerError;
const P = InvalidPolicyError;
/** Arguments that are neither a trigger nor a policy (a preview's `n` and `from`). */
const A = InvalidArgumentError;

const CASES: BadCase[] = [
  // cron: what Temporal would misread
  {
    name: '6 fields (Quartz seconds-first or Temporal year-last?)',
    run: cron('0 30 9 * * MON'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 30 9 * * MON": it has 6 fields, which is ambiguous: Temporal reads it as "minute hour day-of-month month day-of-week year" ("0 30 9 * *" in year MON), while Quartz and Spring read "second minute hour day-of-month month day-of-week". Write 5 fields ("30 9 * * MON") or 7 with the year last ("0 30 9 * * MON *")',
  },
  {
    name: 'Quartz "?"',
    run: cron('0 9 ? * MON'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 9 ? * MON": "?" in the day-of-month field is Quartz syntax; Temporal has no "?": write "*"',
  },
  {
    name: 'Quartz "L" outside the day fields',
    run: cron('0 L * * *'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 L * * *": "L" in the hour field is not a form Quartz or Temporal has here: "last" and "nearest weekday" are written in day-of-month as L, L-3 (3 days before the last), LW (last weekday), 15W (weekday nearest the 15th), and in day-of-week as FRIL or 5L (last Friday)',
  },
  {
    name: 'Quartz "W" in day-of-week',
    run: cron('0 9 * * 15W'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 9 * * 15W": "15W" in the day-of-week field is not a form Quartz or Temporal has here: "last" and "nearest weekday" are written in day-of-month as L, L-3 (3 days before the last), LW (last weekday), 15W (weekday nearest the 15th), and in day-of-week as FRIL or 5L (last Friday)',
  },
  {
    name: 'Quartz "L" alone in day-of-week (Saturday in Quartz)',
    run: cron('0 9 * * L'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 9 * * L": day-of-week field "L" alone means Saturday in Quartz: write the weekday whose last occurrence you mean, e.g. "FRIL" (last Friday)',
  },
  {
    name: 'nth weekday past the fifth',
    run: cron('0 9 * * MON#6'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 9 * * MON#6": day-of-week field "MON#6": the number after # must be 1-5 (the nth one of the month)',
  },
  {
    name: 'nth weekday of a range',
    run: cron('0 9 * * MON-FRI#2'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 9 * * MON-FRI#2": day-of-week field "MON-FRI#2" names more than one weekday: write one, e.g. "FRIL" or "MON#2"',
  },
  {
    name: 'L-n past 30 days',
    run: cron('0 9 L-31 * *'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 9 L-31 * *": day-of-month field "L-31": L-n counts at most 30 days back from the last day',
  },
  {
    name: '"#" in the month field',
    run: cron('0 9 * 1#2 *'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 9 * 1#2 *": "#" (nth weekday, "1#2") in the month field: the nth weekday is written in the day-of-week field, as one weekday, "#" and 1-5, e.g. "0 9 * * MON#2" (the second Monday)',
  },
  {
    name: 'a comment (Temporal would drop the rest)',
    run: cron('0 9 * * MON # weekly'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 9 * * MON # weekly": a comment ("#" starting a field) is not supported: Temporal reads everything after it as a comment; remove it (the nth weekday is written in the day-of-week field, e.g. "MON#2")',
  },
  {
    name: 'a Quartz day that never comes (the 5th Monday of February in a non-leap year)',
    run: cron('0 0 9 * FEB MON#5 2027'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 0 9 * FEB MON#5 2027": no such day: day-of-month "*" with month "FEB", day-of-week "MON#5" and year "2027" is never a day that exists, so Temporal would never run the job',
  },
  {
    name: 'minute out of range',
    run: cron('60 9 * * *'),
    error: T,
    field: 'cron',
    message: 'invalid cron "60 9 * * *": minute field value "60" is out of range 0-59',
  },
  {
    name: 'hour out of range',
    run: cron('0 24 * * *'),
    error: T,
    field: 'cron',
    message: 'invalid cron "0 24 * * *": hour field value "24" is out of range 0-23',
  },
  {
    name: 'day-of-month 0',
    run: cron('0 9 0 * *'),
    error: T,
    field: 'cron',
    message: 'invalid cron "0 9 0 * *": day-of-month field value "0" is out of range 1-31',
  },
  {
    name: 'month 13',
    run: cron('0 9 1 13 *'),
    error: T,
    field: 'cron',
    message: 'invalid cron "0 9 1 13 *": month field value "13" is out of range 1-12',
  },
  {
    name: 'day-of-week 8',
    run: cron('0 9 * * 8'),
    error: T,
    field: 'cron',
    message: 'invalid cron "0 9 * * 8": day-of-week field value "8" is out of range 0-7',
  },
  {
    name: "year before 2000 (Temporal's range is 2000-2100)",
    run: cron('0 0 9 * * * 1999'),
    error: T,
    field: 'cron',
    message: 'invalid cron "0 0 9 * * * 1999": year field value "1999" is out of range 2000-2100',
  },
  {
    name: 'range through Sunday written backwards',
    run: cron('0 9 * * FRI-MON'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 9 * * FRI-MON": day-of-week field range "FRI-MON" goes backwards: write low-high (for a range through Sunday write e.g. "FRI-SAT,SUN" or "5-7")',
  },
  {
    name: 'day-of-week 1-7, which Temporal reads as Monday-Saturday',
    run: cron('0 9 * * 1-7'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 9 * * 1-7": day-of-week field range "1-7" would never run on Sunday (Temporal reads it as Monday-Saturday): write "*" or "0-6" for every day, or "1-6" for Monday to Saturday',
  },
  {
    name: 'calendar dayOfWeek 1-7, likewise',
    run: trigger({ calendar: { hour: 9, dayOfWeek: '1-7' } }),
    error: T,
    field: 'calendar.dayOfWeek',
    message:
      'calendar.dayOfWeek range "1-7" would never run on Sunday (Temporal reads it as Monday-Saturday): write "*" or "0-6" for every day, or "1-6" for Monday to Saturday',
  },
  {
    name: "APScheduler's Monday-is-0 shows in a names/numbers mix",
    run: cron('0 9 * * MON-4'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 9 * * MON-4": day-of-week field "MON-4" mixes day names and numbers: numbers mean different days in cron (0 or 7 = Sunday, 1 = Monday) and in APScheduler (0 = Monday); write names only, e.g. "MON-FRI"',
  },
  {
    name: 'unknown day name',
    run: cron('0 9 * * MONN'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 9 * * MONN": day-of-week field name "MONN" is not a day-of-week name: write SUN, MON, TUE, WED, THU, FRI, SAT (or the full name)',
  },
  {
    name: 'step 0',
    run: cron('*/0 * * * *'),
    error: T,
    field: 'cron',
    message: 'invalid cron "*/0 * * * *": minute field step "/0" must be a whole number of 1 or more',
  },
  {
    name: '@every',
    run: cron('@every 5m'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "@every 5m": use an interval trigger ({ every: "2h", offset: "1h" }) rather than "@every": it is validated and previewed like the others',
  },
  {
    name: 'unknown alias',
    run: cron('@fortnightly'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "@fortnightly": unknown alias; allowed: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly',
  },
  {
    name: 'CRON_TZ prefix',
    run: cron('CRON_TZ=Europe/Paris 0 2 * * *'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "CRON_TZ=Europe/Paris 0 2 * * *": a "TZ=" / "CRON_TZ=" prefix is not supported here: give the time zone in the trigger\'s "timezone" option',
  },
  {
    name: '4 fields',
    run: cron('0 2 * *'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 2 * *": it has 4 fields: write 5 ("minute hour day-of-month month day-of-week") or 7 (second first, year last)',
  },
  {
    name: 'negative value',
    run: cron('-5 * * * *'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "-5 * * * *": minute field item "-5" is not a value or a range "low-high" (negative numbers are not allowed)',
  },
  {
    name: 'a day that never exists (Temporal would accept it and never run)',
    run: cron('0 0 30,31 2 *'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 0 30,31 2 *": no such day: FEB has no day 30, 31, so Temporal would never run the job',
  },
  {
    name: 'February 29 in a year that is not leap',
    run: cron('0 0 0 29 FEB * 2027'),
    error: T,
    field: 'cron',
    message:
      'invalid cron "0 0 0 29 FEB * 2027": no such day: FEB has no day 29 in 2027, so Temporal would never run the job',
  },
  // calendar
  {
    name: 'calendar day that never exists',
    run: trigger({ calendar: { month: ['APRIL', 'JUNE'], dayOfMonth: 31 } }),
    error: T,
    field: 'calendar.dayOfMonth',
    message:
      'calendar.dayOfMonth names no day that exists: APR, JUN have no day 31, so Temporal would never run the job',
  },
  {
    name: "calendar with APScheduler's field name",
    run: trigger({ calendar: { day_of_week: 'MON' } }),
    error: T,
    field: 'calendar.day_of_week',
    message:
      'calendar has no field "day_of_week": did you mean "dayOfWeek"? allowed: second, minute, hour, dayOfMonth, month, dayOfWeek, year, comment',
  },
  {
    name: 'calendar hour out of range',
    run: trigger({ calendar: { hour: 25 } }),
    error: T,
    field: 'calendar.hour',
    message: 'calendar.hour value "25" is out of range 0-23',
  },
  {
    name: 'calendar unknown day name',
    run: trigger({ calendar: { dayOfWeek: 'FUNDAY' } }),
    error: T,
    field: 'calendar.dayOfWeek',
    message:
      'calendar.dayOfWeek name "FUNDAY" is not a day-of-week name: write SUN, MON, TUE, WED, THU, FRI, SAT (or the full name)',
  },
  {
    name: 'calendar naming no field',
    run: trigger({ calendar: {} }),
    error: T,
    field: 'calendar',
    message: "calendar names no field: give at least one, e.g. { hour: 9, dayOfWeek: 'MONDAY' }",
  },
  {
    name: 'calendar list, second entry bad',
    run: trigger({ calendar: [{ hour: 9 }, { minute: 1.5 }] }),
    error: T,
    field: 'calendar[1].minute',
    message: 'calendar[1].minute value "1.5" is not a number',
  },
  {
    name: 'calendar range with step 0',
    run: trigger({ calendar: { minute: { start: 0, end: 59, step: 0 } } }),
    error: T,
    field: 'calendar.minute',
    message: 'calendar.minute step 0 must be a whole number of 1 or more',
  },
  {
    name: 'calendar value of the wrong type',
    run: trigger({ calendar: { hour: true } }),
    error: T,
    field: 'calendar.hour',
    message:
      'calendar.hour value true is not a number, a name, "*", a range { start, end, step } or a list of them',
  },
  // interval
  {
    name: 'interval not in whole seconds',
    run: trigger({ every: 1500 }),
    error: T,
    field: 'every',
    message:
      'every 1500 ms is not a whole number of seconds: Temporal counts intervals in seconds and would drop the 500 ms',
  },
  {
    name: 'interval under a second',
    run: trigger({ every: 500 }),
    error: T,
    field: 'every',
    message: 'an interval must be at least 1 second, got 500 ms',
  },
  {
    name: 'interval given twice',
    run: trigger({ every: '1h', minutes: 5 }),
    error: T,
    field: 'every',
    message: 'give either "every" or minutes, not both',
  },
  {
    name: 'offset as long as the interval',
    run: trigger({ every: '1h', offset: '1h' }),
    error: T,
    field: 'offset',
    message: 'offset (3600000 ms) must be shorter than the interval (3600000 ms)',
  },
  {
    name: 'negative unit',
    run: trigger({ minutes: -5 }),
    error: T,
    field: 'minutes',
    message: 'minutes must be a number of 0 or more, got -5',
  },
  // runAt, timezone, trigger shape
  {
    name: 'runAt without an offset',
    run: trigger({ runAt: '2027-01-01T10:00:00' }),
    error: T,
    field: 'runAt',
    message:
      'runAt "2027-01-01T10:00:00" is not an instant: give a Date or an ISO 8601 string with "Z" or an offset, e.g. "2027-01-01T00:00:00Z"',
  },
  {
    name: 'runAt outside Temporal years',
    run: trigger({ runAt: '1999-01-01T10:00:00Z' }),
    error: T,
    field: 'runAt',
    message: 'runAt "1999-01-01T10:00:00Z" is outside the years Temporal schedules (2000-2100)',
  },
  {
    name: 'misspelt time zone',
    run: trigger({ cron: '0 2 * * *', timezone: 'Europe/Pariss' }),
    error: T,
    field: 'timezone',
    message:
      'timezone "Europe/Pariss" is not an IANA time zone name: write e.g. "UTC", "Europe/Paris", "America/New_York"',
  },
  {
    name: 'POSIX-style zone',
    run: trigger({ cron: '0 2 * * *', timezone: 'CET+1' }),
    error: T,
    field: 'timezone',
    message:
      'timezone "CET+1" is not an IANA time zone name: write e.g. "UTC", "Europe/Paris", "America/New_York"',
  },
  {
    name: 'time zone in the wrong case (the server is case-sensitive)',
    run: trigger({ cron: '0 2 * * *', timezone: 'europe/paris' }),
    error: T,
    field: 'timezone',
    message:
      'timezone "europe/paris" is spelt with the wrong case: the Temporal server only knows "Europe/Paris"',
  },
  {
    name: 'two triggers at once',
    run: trigger({ cron: '0 2 * * *', every: '1h' }),
    error: T,
    field: 'trigger',
    message: 'a job has one trigger, got cron and interval',
  },
  // policies
  {
    name: 'maxInstances 0',
    run: policies({ maxInstances: 0 }),
    error: P,
    field: 'maxInstances',
    message: 'maxInstances must be a whole number of 1 or more, got 0',
  },
  {
    name: 'unknown overlap policy',
    run: policies({ overlap: 'SKIPP' }),
    error: P,
    field: 'overlap',
    message:
      'overlap "SKIPP" is not one of SKIP, BUFFER_ONE, BUFFER_ALL, CANCEL_OTHER, TERMINATE_OTHER, ALLOW_ALL',
  },
  {
    name: 'maxInstances > 1 with a limiting overlap',
    run: policies({ maxInstances: 3, overlap: 'SKIP' }),
    error: P,
    field: 'overlap',
    message: 'maxInstances 3 needs overlap ALLOW_ALL (or no overlap), got SKIP',
  },
  {
    name: "catchupWindow under Temporal's floor",
    run: policies({ catchupWindow: '5s' }),
    error: P,
    field: 'catchupWindow',
    message: "catchupWindow must be at least 10s (Temporal's minimum), got 5000 ms",
  },
  {
    name: 'misfireGraceTime not a duration',
    run: policies({ misfireGraceTime: 'soon' }),
    error: P,
    field: 'misfireGraceTime',
    message:
      "misfireGraceTime \"soon\" is not a duration: write milliseconds as a number or a string such as '30s', '5m', '2h', '1d'",
  },
  {
    name: 'startAt without an offset',
    run: policies({ startAt: '2027-01-01' }),
    error: P,
    field: 'startAt',
    message:
      'startAt "2027-01-01" is not an instant: give a Date or an ISO 8601 string with "Z" or an offset, e.g. "2027-01-01T00:00:00Z"',
  },
  {
    name: 'endAt before startAt',
    run: policies({ startAt: '2027-01-02T00:00:00Z', endAt: '2027-01-01T00:00:00Z' }),
    error: P,
    field: 'endAt',
    message: 'endAt must be after startAt',
  },
  // preview arguments
  {
    name: 'preview of 0 runs',
    run: () => previewTrigger({ cron: '@daily' }, 0),
    error: A,
    field: 'n',
    message: 'n must be a whole number from 1 to 1000, got 0',
  },
  {
    name: 'preview from a local date',
    run: () => previewTrigger({ cron: '@daily' }, 1, { from: '2027-01-01' }),
    error: A,
    field: 'from',
    message:
      'from "2027-01-01" is not an instant: give a Date or an ISO 8601 string with "Z" or an offset, e.g. "2027-01-01T00:00:00Z"',
  },
];

describe('bad schedule input gets a typed error that says what to write instead', () => {
  it('has at least 25 cases', () => expect(CASES.length).toBeGreaterThanOrEqual(25));

  it.each(CASES)('$name', ({ run, error, field, message }) => {
    let caught: unknown;
    try {
      run();
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(error);
    expect((caught as Error).constructor).toBe(error);
    expect(caught).toBeInstanceOf(TemporalFlowError);
    expect(caught).toMatchObject({ field, message });
  });
});

describe('validateTimezone remembers valid names only', () => {
  it('still refuses a wrong-case or unknown name after the right one was accepted', () => {
    expect(validateTimezone('America/New_York')).toBe('America/New_York');
    expect(validateTimezone('America/New_York')).toBe('America/New_York');
    expect(() => validateTimezone('america/new_york')).toThrow(/spelt with the wrong case/);
    expect(() => validateTimezone('America/New_Yorkk')).toThrow(/not an IANA time zone name/);
    expect(() => validateTimezone('america/new_york', 'zone')).toThrow(/^zone "america\/new_york"/);
  });
});

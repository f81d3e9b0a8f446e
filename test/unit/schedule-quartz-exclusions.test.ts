import { describe, expect, it } from 'vitest';
import { compileTrigger } from '../../src/schedule/compile-trigger';
import { InvalidTriggerError, UnknownHolidaysError } from '../../src/schedule/errors';
import { previewTrigger } from '../../src/schedule/preview';
import type { Trigger } from '../../src/schedule/trigger-types';

/*
 * Quartz day forms in calendar fields, exclusions and jitter as preview shows them, and the typed errors of
 * holiday sets. (Their meaning over years is checked by the model tests: test/unit/fuzz-quartz-model.)
 */

const dates = (trigger: Trigger, n: number, from: string) =>
  previewTrigger(trigger, n, { from }).fireTimes.map((f) => f.local.slice(0, 10));

describe('Quartz day forms in calendar fields mean what they mean in cron strings', () => {
  it.each([
    ['L', '*', '0 9 L * *'],
    ['15W', '*', '0 9 15W * *'],
    ['*', 'FRI#2', '0 9 * * FRI#2'],
    ['*', '5L', '0 9 * * FRIL'],
    [['L', 15], '*', '0 9 L,15 * *'],
  ] as const)('dayOfMonth %j, dayOfWeek %j = %s', (dayOfMonth, dayOfWeek, cron) => {
    const calendar = { hour: 9, dayOfMonth: dayOfMonth as never, dayOfWeek };
    const from = '2027-01-01T00:00:00Z';
    expect(dates({ calendar, timezone: 'Europe/Paris' }, 14, from)).toEqual(
      dates({ cron, timezone: 'Europe/Paris' }, 14, from),
    );
  });

  it('February 29 only in leap years, as a year list', () => {
    expect(dates({ cron: '0 9 L FEB *' }, 3, '2027-01-01T00:00:00Z')).toEqual([
      '2027-02-28',
      '2028-02-29',
      '2029-02-28',
    ]);
  });
});

describe('exclusions as preview shows them', () => {
  it('lists excluded dates with their reason and the holiday horizon', () => {
    const p = previewTrigger(
      {
        cron: '0 9 * * *',
        timezone: 'Europe/Paris',
        exclude: [{ holidays: 'FR' }, '2027-05-07'],
        businessDays: true,
      },
      2,
      { from: '2027-05-05T12:00:00Z' },
    );
    expect(p.fireTimes.map((f) => f.local)).toEqual([
      '2027-05-10T09:00:00+02:00',
      '2027-05-11T09:00:00+02:00',
    ]);
    expect(p.excludedDates).toEqual([
      { date: '2027-05-06', reason: 'holiday FR: Ascension Day', runs: 1 },
      { date: '2027-05-07', reason: '2027-05-07', runs: 1 },
      { date: '2027-05-08', reason: 'holiday FR: Victory Day', runs: 1 },
      { date: '2027-05-09', reason: 'weekend', runs: 1 },
    ]);
    const year = new Date().getUTCFullYear();
    expect(p.holidayHorizon).toEqual({ from: year, to: year + 3 });
  });

  it('exclusion calendars are whole days unless they give a time', () => {
    const got = dates(
      { cron: '0 9 * * *', exclude: { calendar: { dayOfMonth: 'L' } } },
      3,
      '2027-01-29T12:00:00Z',
    );
    expect(got).toEqual(['2027-01-30', '2027-02-01', '2027-02-02']);
  });

  it('jitter gives each run its window, never reaching the next run', () => {
    const p = previewTrigger({ cron: '0,10 9 L * *' }, 2, { from: '2027-01-01T00:00:00Z', jitter: '30m' });
    expect(p.fireTimes).toEqual([
      { utc: '2027-01-31T09:00:00Z', local: '2027-01-31T09:00:00Z', jitterUntil: '2027-01-31T09:10:00Z' },
      { utc: '2027-01-31T09:10:00Z', local: '2027-01-31T09:10:00Z', jitterUntil: '2027-01-31T09:40:00Z' },
    ]);
  });
});

describe('bad exclusions get a typed error', () => {
  it.each([
    [
      { holidays: 'XX' },
      UnknownHolidaysError,
      'exclude.holidays',
      '"XX" is not a country date-holidays knows',
    ],
    [
      { holidays: 'US-QQ' },
      UnknownHolidaysError,
      'exclude.holidays',
      '"QQ" is not a state of US that date-holidays knows; known: AL, AK',
    ],
    ['2027-02-30', InvalidTriggerError, 'exclude', 'exclude "2027-02-30" is not a date: write "YYYY-MM-DD"'],
    [{ from: '2027-01-02', to: '2027-01-01' }, InvalidTriggerError, 'exclude', 'must cover 1 to 366 days'],
    [{ weekday: 'SAT' }, InvalidTriggerError, 'exclude', 'is not a date "YYYY-MM-DD", { from, to }'],
  ] as const)('%j', (exclude, error, field, message) => {
    const run = () => compileTrigger({ cron: '0 9 * * *', exclude: exclude as never }, 'UTC');
    expect(run).toThrow(error);
    expect(run).toThrow(message);
    try {
      run();
    } catch (err) {
      expect((err as InvalidTriggerError).field).toBe(field);
    }
  });

  it('a one-off cannot exclude', () => {
    expect(() => compileTrigger({ runAt: '2030-01-01T00:00:00Z', exclude: '2030-01-01' }, 'UTC')).toThrow(
      'a one-off job runs at its runAt',
    );
  });
});

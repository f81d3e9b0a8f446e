import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CRON_ALIASES, DAY_NAMES, MONTH_NAMES } from '../../src/schedule/cron-fields';
import { parseCron } from '../../src/schedule/cron';
import { rangeValues } from '../../src/schedule/field-parse';
import type { Trigger } from '../../src/schedule/trigger-types';
import {
  calendarInWords,
  cronInWords,
  durationInWords,
  triggerInWords,
} from '../../src/schedule/trigger-words';
import { fuzzParams } from '../helpers/fuzz';
import { validCron } from '../helpers/trigger-arbitraries';

/*
 * Triggers in words, checked against our cron dialect (src/schedule/cron.ts): every form the dialect
 * accepts gets the sentence that says what Temporal does with it. cronstrue reads the canonical cron of
 * the parsed calendar, so name prefixes, Sunday 7, "10/5" and aliases reach it already resolved.
 */

const CASES: [Trigger, string][] = [
  // 5 fields
  [{ cron: '0 2 * * *', timezone: 'Europe/Paris' }, 'At 02:00 (Europe/Paris)'],
  [{ cron: '*/15 * * * *' }, 'Every 15 minutes (UTC)'],
  [{ cron: '10/5 * * * *' }, 'Every 5 minutes, minutes 10 through 59 past the hour (UTC)'],
  [
    { cron: '1-10/2,20 * * * *' },
    'Every 2 minutes, minutes 1 through 10 past the hour and at 20 minutes past the hour (UTC)',
  ],
  [
    { cron: '0 9-17/2 * * 1-5' },
    'On the hour, every 2 hours, between 09:00 and 17:00, Monday through Friday (UTC)',
  ],
  [{ cron: '5 4 * 1-6/2 *' }, 'At 04:05, every 2 months, January through June (UTC)'],
  // names: full, abbreviated, prefixes, any case; Sunday as 0 or 7
  [{ cron: '0 9 * * MON-FRI' }, 'At 09:00, Monday through Friday (UTC)'],
  [{ cron: '0 9 * * tues' }, 'At 09:00, only on Tuesday (UTC)'],
  [{ cron: '0 9 * * mon,Wed,FRIDAY' }, 'At 09:00, only on Monday, Wednesday, and Friday (UTC)'],
  [{ cron: '0 9 * * 7' }, 'At 09:00, only on Sunday (UTC)'],
  [{ cron: '0 9 * * 5-7' }, 'At 09:00, only on Sunday and Friday through Saturday (UTC)'],
  [{ cron: '0 0 1 JAN,JULY *' }, 'At 00:00, on day 1 of the month, only in January and July (UTC)'],
  // day-of-month AND day-of-week (Temporal requires both): "and"
  [{ cron: '0 9 1-7 * MON' }, 'At 09:00, between day 1 and 7 of the month, and on Monday (UTC)'],
  // 7 fields: seconds first, year last
  [{ cron: '30 0 2 * * SUN 2027' }, 'At 02:00:30, only on Sunday, only in 2027 (UTC)'],
  [{ cron: '0 0 2 * * * 2027-2030' }, 'At 02:00, 2027 through 2030 (UTC)'],
  [{ cron: '0 0 0 1 */12 * 2026' }, 'At 00:00, on day 1 of the month, only in January, only in 2026 (UTC)'],
  [{ cron: '*/10 * * * * * *' }, 'Every 10 seconds (UTC)'],
  // several crons
  [{ cron: ['0 2 * * *', '*/30 * * * SAT'] }, 'At 02:00, or every 30 minutes, only on Saturday (UTC)'],
  // calendars
  [{ calendar: { hour: 9, dayOfWeek: 'MONDAY' } }, 'At 09:00, only on Monday (UTC)'],
  [
    { calendar: [{ hour: 9 }, { hour: 18, minute: 30 }], timezone: 'America/New_York' },
    'At 09:00, or at 18:30 (America/New_York)',
  ],
  [{ calendar: { minute: { start: 0, end: 59, step: 20 }, hour: '*' } }, 'Every 20 minutes (UTC)'],
  // intervals and one-offs
  // Quartz day forms compile to many calendars; their words come from the source, in one sentence.
  [{ cron: '0 2 L * *' }, 'At 02:00, on the last day of the month (UTC)'],
  [{ cron: '0 9 * * MON#2' }, 'At 09:00, on the second Monday of the month (UTC)'],
  [{ cron: '0 9 15W * *' }, 'At 09:00, on the weekday nearest day 15 of the month (UTC)'],
  [{ cron: ['0 18 * * 5L', '30 2 * * *'] }, 'At 18:00, on the last Friday of the month, or at 02:30 (UTC)'],
  [{ every: '30m' }, 'Every 30 min (counted in UTC)'],
  [{ every: '2h', offset: '1h' }, 'Every 2 h, offset 1 h (counted in UTC)'],
  [{ hours: 36 }, 'Every 1 d 12 h (counted in UTC)'],
  [
    { runAt: '2027-01-01T08:30:00Z', timezone: 'Europe/Paris' },
    'Once, at 2027-01-01 09:30:00 (Europe/Paris)',
  ],
];

const ALIAS_WORDS: Record<string, string> = {
  '@yearly': 'At 00:00, on day 1 of the month, only in January',
  '@annually': 'At 00:00, on day 1 of the month, only in January',
  '@monthly': 'At 00:00, on day 1 of the month',
  '@weekly': 'At 00:00, only on Sunday',
  '@daily': 'At 00:00',
  '@midnight': 'At 00:00',
  '@hourly': 'Every hour',
};

describe('triggerInWords', () => {
  it.each(CASES)('%j', (trigger, words) => {
    expect(triggerInWords(trigger)).toBe(words);
  });

  it('says every alias the dialect accepts', () => {
    expect(Object.keys(ALIAS_WORDS).sort()).toEqual(Object.keys(CRON_ALIASES).sort());
    for (const [alias, words] of Object.entries(ALIAS_WORDS)) {
      expect(triggerInWords({ cron: alias }), alias).toBe(`${words} (UTC)`);
    }
  });

  it('uses the default zone of a trigger that names none', () => {
    expect(triggerInWords({ cron: '0 2 * * *' }, 'Asia/Tokyo')).toBe('At 02:00 (Asia/Tokyo)');
  });

  it("refuses what the dialect refuses, with the parser's error", () => {
    expect(() => triggerInWords({ cron: '0 0 2 * * *' })).toThrow(/6 fields, which is ambiguous/);
  });

  it('names the values of every cron of the dialect, from cronstrue or the fallback', () => {
    fc.assert(
      fc.property(validCron, (cron) => {
        // The arbitrary writes some crons whose days never exist (FEB 30), which the dialect refuses.
        let calendar: ReturnType<typeof parseCron>['calendars'][number];
        try {
          calendar = parseCron(cron).calendars[0]!;
        } catch {
          fc.pre(false);
          return;
        }
        const words = cronInWords(calendar);
        expect(words).not.toMatch(/undefined|NaN|null|error/i);
        const one = (name: keyof typeof calendar) => {
          const v = rangeValues(calendar[name]);
          return v.length === 1 ? v[0] : undefined;
        };
        const [h, m, s] = [one('hour'), one('minute'), one('second')];
        if (h !== undefined && m !== undefined && s === 0) {
          expect(words).toContain(`${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
        }
        const dow = one('dayOfWeek');
        if (dow !== undefined) expect(words.toUpperCase()).toContain(DAY_NAMES[dow]);
        const month = one('month');
        if (month !== undefined) expect(words.toUpperCase()).toContain(MONTH_NAMES[month - 1]);
        const year = one('year');
        if (year !== undefined) expect(words).toContain(String(year));
      }),
      fuzzParams(300),
    );
  });
});

describe('calendarInWords (the fallback when cronstrue cannot say it)', () => {
  it.each([
    ['0 2 * * *', 'At 02:00:00'],
    ['30 9 1,15 JAN MON', 'At 09:30:00, on day 1 and 15 of the month, on Monday, in January'],
    ['0,30 8-9 * * *', 'Hour 8 and 9, minute 0 and 30, second 0'],
    ['*/20 * * * * * 2027', 'Every hour, every minute, second 0, 20 and 40, in 2027'],
    ['0 0 0 1/12 1 * 2027', 'At 00:00:00, on day 1, 13 and 25 of the month, in January, in 2027'],
  ])('%s', (cron, words) => {
    expect(calendarInWords(parseCron(cron).calendars[0]!)).toBe(words);
  });
});

describe('durationInWords', () => {
  it.each([
    [250, '250 ms'],
    [45_000, '45 s'],
    [60_000, '1 min'],
    [(2 * 60 + 13) * 60_000 + 5000, '2 h 13 min'],
    [3 * 86_400_000 + 4 * 3_600_000, '3 d 4 h'],
    [86_400_000 + 30_000, '1 d'],
    [-180_000, '3 min'],
  ])('%d ms', (ms, words) => {
    expect(durationInWords(ms)).toBe(words);
  });
});

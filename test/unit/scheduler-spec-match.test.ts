import { describe, expect, it } from 'vitest';
import type { CalendarSpecDescription, ScheduleSpecDescription } from '@temporalio/client';
import {
  actualFingerprint,
  expectedFingerprint,
  formatMs,
  triggerFromSpec,
} from '../../src/client/jobs/store/job-spec-match';
import { compileTrigger } from '../../src/schedule/compile-trigger';
import type { Trigger } from '../../src/schedule/trigger-types';

/** The fingerprint of what a trigger asks of Temporal (unnamed time zones are UTC). */
const expected = (trigger: Trigger) => expectedFingerprint(compileTrigger(trigger, 'UTC'));

/** A calendar as the server describes `m h * * *` (the shape `describe()` returns). */
function daily(minute: number, hour: number): CalendarSpecDescription {
  return {
    second: [{ start: 0, end: 0, step: 1 }],
    minute: [{ start: minute, end: minute, step: 1 }],
    hour: [{ start: hour, end: hour, step: 1 }],
    dayOfMonth: [{ start: 1, end: 31, step: 1 }],
    month: [{ start: 'JANUARY', end: 'DECEMBER', step: 1 }],
    year: [],
    dayOfWeek: [{ start: 'SUNDAY', end: 'SATURDAY', step: 1 }],
  };
}
const described = (spec: Partial<ScheduleSpecDescription>): ScheduleSpecDescription => ({
  calendars: [],
  intervals: [],
  skip: [],
  timezone: 'UTC',
  ...spec,
});

describe('edit detection: what was asked vs what the schedule has', () => {
  it('matches a cron with the calendar the server made of it', () => {
    const actual = described({ calendars: [daily(0, 2)], timezone: 'Europe/Paris' });
    expect(expected({ cron: '0 2 * * *', timezone: 'Europe/Paris' })).toBe(actualFingerprint(actual));
  });

  it.each([
    ['another hour', { cron: '0 3 * * *', timezone: 'Europe/Paris' }],
    ['another time zone', { cron: '0 2 * * *', timezone: 'Europe/London' }],
    ['an extra calendar', { cron: ['0 2 * * *', '0 4 * * *'], timezone: 'Europe/Paris' }],
    ['an interval instead', { every: '1d', timezone: 'Europe/Paris' }],
  ])('tells %s apart', (_what, trigger: Trigger) => {
    const actual = described({ calendars: [daily(0, 2)], timezone: 'Europe/Paris' });
    expect(expected(trigger)).not.toBe(actualFingerprint(actual));
  });

  it('reads day-of-week 7 and 0 as Sunday, and names as numbers', () => {
    expect(expected({ cron: '0 0 * * 7' })).toBe(expected({ cron: '0 0 * * SUN' }));
    expect(expected({ cron: '0 0 * JAN-MAR 1-5' })).toBe(expected({ cron: '0 0 * 1-3 MON-FRI' }));
  });

  it('matches a one-off with the calendar of its one second', () => {
    const at: CalendarSpecDescription = {
      second: [{ start: 5, end: 5, step: 1 }],
      minute: [{ start: 30, end: 30, step: 1 }],
      hour: [{ start: 23, end: 23, step: 1 }],
      dayOfMonth: [{ start: 31, end: 31, step: 1 }],
      month: [{ start: 'DECEMBER', end: 'DECEMBER', step: 1 }],
      year: [{ start: 2030, end: 2030, step: 1 }],
      dayOfWeek: [{ start: 'SUNDAY', end: 'SATURDAY', step: 1 }],
    };
    expect(expected({ runAt: '2030-12-31T23:30:05Z' })).toBe(
      actualFingerprint(described({ calendars: [at] })),
    );
    expect(expected({ runAt: '2030-12-31T23:30:06Z' })).not.toBe(
      actualFingerprint(described({ calendars: [at] })),
    );
  });

  it('matches a calendar trigger and the cron string that means the same', () => {
    expect(expected({ calendar: { hour: 9, dayOfWeek: 'MON-FRI' } })).toBe(expected({ cron: '0 9 * * 1-5' }));
    expect(expected({ cron: '0 0 * * 5-7' })).toBe(
      actualFingerprint(
        described({
          calendars: [
            {
              ...daily(0, 0),
              dayOfWeek: [
                { start: 'SUNDAY', end: 'SUNDAY', step: 1 },
                { start: 'FRIDAY', end: 'SATURDAY', step: 1 },
              ],
            },
          ],
        }),
      ),
    );
  });

  it('compares intervals in milliseconds, however they were written', () => {
    expect(expected({ every: '2h', offset: '1h' })).toBe(
      actualFingerprint(described({ intervals: [{ every: 7_200_000, offset: 3_600_000 }] })),
    );
  });
});

describe('triggerFromSpec: the trigger an edited schedule means', () => {
  it('writes a calendar back as a 5-field cron', () => {
    expect(triggerFromSpec(described({ calendars: [daily(30, 4)], timezone: 'Asia/Tokyo' }))).toEqual({
      cron: '30 4 * * *',
      timezone: 'Asia/Tokyo',
    });
  });

  it('keeps ranges, steps and lists', () => {
    const cal: CalendarSpecDescription = {
      ...daily(0, 9),
      minute: [{ start: 0, end: 59, step: 15 }],
      hour: [{ start: 9, end: 17, step: 1 }],
      dayOfWeek: [{ start: 'MONDAY', end: 'FRIDAY', step: 1 }],
      dayOfMonth: [
        { start: 1, end: 1, step: 1 },
        { start: 15, end: 15, step: 1 },
      ],
    };
    expect(triggerFromSpec(described({ calendars: [cal] }))).toEqual({
      cron: '*/15 9-17 1,15 * 1-5',
      timezone: 'UTC',
    });
  });

  it('uses 7 fields when seconds or years are set', () => {
    const cal = {
      ...daily(10, 5),
      second: [{ start: 30, end: 30, step: 1 }],
      year: [{ start: 2027, end: 2027, step: 1 }],
    };
    expect(triggerFromSpec(described({ calendars: [cal] }))).toEqual({
      cron: '30 10 5 * * * 2027',
      timezone: 'UTC',
    });
  });

  it('writes an interval with readable durations', () => {
    expect(triggerFromSpec(described({ intervals: [{ every: 7_200_000, offset: 3_600_000 }] }))).toEqual({
      every: '2h',
      offset: '1h',
      timezone: 'UTC',
    });
    expect(formatMs(90_000)).toBe('90s');
    expect(formatMs(1_500)).toBe('1500ms');
  });
});

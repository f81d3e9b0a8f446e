import type { CalendarSpecDescription } from '@temporalio/client';
import {
  DAY_NAMES,
  FIELD_RULES,
  MONTH_NAMES,
  SEVEN_FIELDS,
  type CalendarFieldName,
  type FieldRange,
  type StructuredCalendar,
} from './cron-fields';
import { foldSunday, rangeValues } from './field-parse';

/*
 * The structured calendar (see cron-fields.ts) read back from what the server describes, and written out
 * again: as a canonical key (two calendars meaning the same times have the same key; used to tell a job
 * edited outside temporal-flow) and as a cron string (to describe such a job). One model: the ranges the
 * parser produces are the ranges compared and printed here.
 */

/** A value as the SDK describes it (month and day-of-week as full names) in the model's numbers. */
function described(name: CalendarFieldName, value: number | string): number {
  if (typeof value === 'number') return value;
  const names: readonly string[] = name === 'month' ? MONTH_NAMES : DAY_NAMES;
  return names.indexOf(value) + (FIELD_RULES[name].nameBase ?? 0);
}

/** A calendar of a schedule's description (`ScheduleDescription.spec.calendars[i]`) in the model. */
export function calendarFromDescription(c: CalendarSpecDescription): StructuredCalendar {
  return Object.fromEntries(
    SEVEN_FIELDS.map((name) => {
      const ranges = (c[name] as readonly { start: number | string; end: number | string; step: number }[])
        .map((r) => ({ start: described(name, r.start), end: described(name, r.end), step: r.step }))
        .flatMap((r) => foldSunday(r, FIELD_RULES[name]));
      return [name, ranges];
    }),
  ) as unknown as StructuredCalendar;
}

/** A one-off's calendar: the one UTC second it fires at, any day of the week. */
export function instantCalendar(at: Date): StructuredCalendar {
  const one = (v: number): FieldRange[] => [{ start: v, end: v, step: 1 }];
  return {
    second: one(at.getUTCSeconds()),
    minute: one(at.getUTCMinutes()),
    hour: one(at.getUTCHours()),
    dayOfMonth: one(at.getUTCDate()),
    month: one(at.getUTCMonth() + 1),
    dayOfWeek: [{ start: 0, end: 6, step: 1 }],
    year: one(at.getUTCFullYear()),
  };
}

/** Largest value a field holds once stored: day-of-week keeps Sunday as 0 only (0-6). */
function storedMax(name: CalendarFieldName): number {
  return name === 'dayOfWeek' ? 6 : FIELD_RULES[name].max;
}

/** True when a field matches every value (a year matches every year only when it lists none). */
export function matchesAll(name: CalendarFieldName, ranges: readonly FieldRange[]): boolean {
  if (ranges.length === 0) return true;
  return name !== 'year' && rangeValues(ranges).length === storedMax(name) - FIELD_RULES[name].min + 1;
}

/** A key equal for two calendars exactly when they match the same times: per field `*` or its values. */
export function calendarKey(calendar: StructuredCalendar): string {
  return SEVEN_FIELDS.map((name) => {
    const ranges = calendar[name];
    return matchesAll(name, ranges) ? '*' : rangeValues(ranges).join(',');
  }).join(' ');
}

function fieldCron(name: CalendarFieldName, ranges: readonly FieldRange[]): string {
  if (matchesAll(name, ranges)) return '*';
  const [min, max] = [FIELD_RULES[name].min, storedMax(name)];
  return ranges
    .map((r) => {
      const whole = r.start === min && r.end === max;
      const span = whole ? '*' : r.start === r.end ? `${r.start}` : `${r.start}-${r.end}`;
      return r.step > 1 ? `${span}/${r.step}` : span;
    })
    .join(',');
}

/** The calendar as a cron string: 5 fields when it fires at second 0 of every year, else 7. */
export function calendarToCron(calendar: StructuredCalendar): string {
  const [second, minute, hour, dom, month, dow, year] = SEVEN_FIELDS.map((name) =>
    fieldCron(name, calendar[name]),
  );
  return second === '0' && year === '*'
    ? `${minute} ${hour} ${dom} ${month} ${dow}`
    : `${second} ${minute} ${hour} ${dom} ${month} ${dow} ${year}`;
}

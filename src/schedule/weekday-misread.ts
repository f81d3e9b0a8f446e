import type { StructuredCalendar } from './cron-fields';
import { findTransitions } from './dst';
import type { DstPolicy } from './dst-policy';
import type { CompiledExclusion } from './exclusions';
import { rangeValues } from './field-parse';
import { daysInMonth } from '../parse/days-in-month';
import { ZoneClock } from './zone-clock';

/*
 * The server reads a date's weekday at its local midnight (calendar-next.ts, rule 4). Where midnight does
 * not exist (America/Santiago in September, America/Havana in March), Go's time.Date lands on the evening
 * before, so the date passes for the day before: `SAT#1` would also run on that Sunday. A Quartz form
 * promises its days exactly, so for the calendars it compiled to, each such date in the horizon years
 * gets a skip calendar for the times the calendar names there, unless another calendar of the trigger
 * really names that date (the skip would take its runs too).
 *
 * A cron or calendar trigger with no DST policy at all (neither its own nor the scheduler's) that names
 * weekdays, in a zone where the server misreads some, gets {@link MISREAD_DEFAULT_DST} (misreadDefault):
 * the DST policy's compile then adds the runs the server would lose (Santiago's first Sunday of
 * September) and skips the ones it would add, exactly as a `dst` the user gives does. `gap: 'skip'` is what
 * the server itself does with a named time in such a zone's gaps (each is the midnight hour), so nothing
 * else changes. `dst: {}` (no side) keeps the server's raw reading.
 */

/**
 * The DST policy a weekday trigger without one gets in a zone whose midnight gaps make the server misread
 * weekdays: the named times exactly, a time in a gap not run (as the server does).
 */
export const MISREAD_DEFAULT_DST: DstPolicy = { gap: 'skip' };

const misreadCache = new Map<string, string[]>();

/** `YYYY-MM-DD` dates of `year` whose weekday the server reads wrong in `timezone` (midnight does not exist). */
function misreadDatesOf(timezone: string, year: number): string[] {
  const key = `${timezone} ${year}`;
  let out = misreadCache.get(key);
  if (!out) {
    out = [];
    const clock = new ZoneClock(timezone);
    for (let mo = 1; mo <= 12; mo++) {
      for (let d = 1; d <= daysInMonth(mo, year); d++) {
        if (
          clock.wall(clock.date(year, mo, d, 0, 0, 0)).dow !== new Date(Date.UTC(year, mo - 1, d)).getUTCDay()
        ) {
          out.push(`${year}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
        }
      }
    }
    misreadCache.set(key, out);
  }
  return out;
}

/** Whether every clock change forward of `timezone` in `years` starts at local midnight. */
function gapsAtMidnight(timezone: string, years: readonly number[]): boolean {
  const clock = new ZoneClock(timezone);
  const from = Date.UTC(years[0]!, 0, 1) / 1000;
  const to = Date.UTC(years[years.length - 1]! + 1, 0, 1) / 1000;
  return findTransitions(clock, from, to)
    .filter((tr) => tr.after > tr.before)
    .every((tr) => (((tr.at + tr.before) % 86_400) + 86_400) % 86_400 === 0);
}

/**
 * Most times a day a trigger may name for the default correction: each misread date adds up to this many
 * calendar entries to the schedule's spec (for its 5-year horizon, 230 at 48). Denser triggers (every 15
 * minutes and more often on some weekday) keep the server's reading, which preview warns about: their
 * entries would make the spec large and its compile slow (every 5 minutes on Sundays in Santiago: 1,380
 * entries, 25 s).
 */
export const MISREAD_DEFAULT_MAX_PER_DAY = 48;

/** How many times a day the calendars name, at most (their sum). */
function timesPerDay(calendars: readonly StructuredCalendar[]): number {
  return calendars.reduce(
    (n, c) => n + rangeValues(c.second).length * rangeValues(c.minute).length * rangeValues(c.hour).length,
    0,
  );
}

/**
 * The DST policy a cron or calendar trigger that sets none gets by default: {@link MISREAD_DEFAULT_DST}
 * when it names weekdays, at most {@link MISREAD_DEFAULT_MAX_PER_DAY} times a day, and the server misreads
 * a weekday of `timezone` in `years` (and every gap there is at midnight, so the policy changes nothing
 * else); else none.
 */
export function misreadDefault(
  calendars: readonly StructuredCalendar[],
  timezone: string,
  years: readonly number[],
): DstPolicy | undefined {
  if (!calendars.some((c) => rangeValues(c.dayOfWeek).length < 7)) return undefined;
  if (timesPerDay(calendars) > MISREAD_DEFAULT_MAX_PER_DAY) return undefined;
  if (!years.some((y) => misreadDatesOf(timezone, y).length > 0)) return undefined;
  return gapsAtMidnight(timezone, years) ? MISREAD_DEFAULT_DST : undefined;
}

/** Skip calendars undoing the server's weekday misreading on the dates of `years` where it happens. */
export function misreadCorrections(
  quartz: readonly StructuredCalendar[],
  all: readonly StructuredCalendar[],
  timezone: string,
  years: readonly number[],
): CompiledExclusion[] {
  const restricted = quartz.filter((c) => rangeValues(c.dayOfWeek).length < 7);
  if (restricted.length === 0) return [];
  const clock = new ZoneClock(timezone);
  const out: CompiledExclusion[] = [];
  for (const y of years) {
    for (let mo = 1; mo <= 12; mo++) {
      for (let d = 1; d <= daysInMonth(mo, y); d++) {
        const read = clock.wall(clock.date(y, mo, d, 0, 0, 0)).dow;
        const real = new Date(Date.UTC(y, mo - 1, d)).getUTCDay();
        if (read === real) continue;
        const names = (c: StructuredCalendar, dow: number) =>
          (c.year.length === 0 || rangeValues(c.year).includes(y)) &&
          rangeValues(c.month).includes(mo) &&
          rangeValues(c.dayOfMonth).includes(d) &&
          rangeValues(c.dayOfWeek).includes(dow);
        if (all.some((c) => names(c, real))) continue;
        const one = (v: number) => [{ start: v, end: v, step: 1 }];
        for (const c of restricted.filter((cal) => names(cal, read))) {
          out.push({
            calendar: {
              ...c,
              year: one(y),
              month: one(mo),
              dayOfMonth: one(d),
              dayOfWeek: [{ start: 0, end: 6, step: 1 }],
            },
            label: `not a ${WEEKDAYS[read]}: midnight does not exist, Temporal would read the weekday of the day before`,
          });
        }
      }
    }
  }
  return out;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

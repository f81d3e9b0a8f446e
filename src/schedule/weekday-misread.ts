import type { StructuredCalendar } from './cron-fields';
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
 * really names that date (the skip would take its runs too). Plain cron keeps the server's reading,
 * which preview's DST warnings point out.
 */

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

import { MAX_YEAR, type CalendarFieldName, type FieldRange, type StructuredCalendar } from './cron-fields';
import { rangeValues } from './field-parse';
import { daysInMonth, ZoneClock } from './zone-clock';

/*
 * The next time a calendar matches, computed step by step as the Temporal server does it
 * (service/worker/scheduler/calendar.go, compiledCalendar.next), including its DST handling:
 * - a wall time that does not exist (spring forward) is skipped when Go's time.Date moves it to another
 *   hour; in a 30-minute gap (Australia/Lord_Howe) it stays in the same hour and fires shifted instead;
 * - when the wall clock goes back, the hour before the repeated one is searched again with a one-hour
 *   offset, so times in the repeated hour can fire twice, and in zones east of UTC the hour *before*
 *   the change fires a second time, one hour late. `preview` reports both as DST warnings.
 * Any change here must keep test/integration/preview-matching-times.test.ts green.
 */

type Matcher = (v: number) => boolean;

/** A calendar ready to match, in its zone. */
export interface CalendarMatcher {
  readonly clock: ZoneClock;
  readonly fields: Readonly<Record<CalendarFieldName, Matcher>>;
}

function matcher(ranges: readonly FieldRange[], name: CalendarFieldName): Matcher {
  if (name === 'year' && ranges.length === 0) return () => true;
  const values = new Set(rangeValues(ranges));
  return (v) => values.has(v);
}

/** Prepares a parsed calendar for matching in a time zone. */
export function calendarMatcher(calendar: StructuredCalendar, clock: ZoneClock): CalendarMatcher {
  const fields = {} as Record<CalendarFieldName, Matcher>;
  for (const name of Object.keys(calendar) as CalendarFieldName[])
    fields[name] = matcher(calendar[name], name);
  return { clock, fields };
}

/** Whether the wall time at an instant (Unix seconds) matches the calendar. */
export function calendarMatches(cal: CalendarMatcher, sec: number): boolean {
  const w = cal.clock.wall(sec);
  const f = cal.fields;
  return (
    f.year(w.y) &&
    f.month(w.mo) &&
    f.dayOfMonth(w.d) &&
    f.dayOfWeek(w.dow) &&
    f.hour(w.h) &&
    f.minute(w.mi) &&
    f.second(w.s)
  );
}

/** The first instant (Unix seconds) strictly after `after` that the calendar matches, or undefined. */
// Mirrors the server's loop statement by statement so that the two can be compared line by line.

export function nextCalendarTime(cal: CalendarMatcher, after: number): number | undefined {
  const { clock, fields: f } = cal;
  let { y, mo, d, h, mi: m, s } = clock.wall(after);
  // In the second copy of a repeated hour, times are the first copy's plus one hour.
  let dstOffset = clock.wall(after - 3600).h === h ? 3600 : 0;
  s++;
  outer: for (;;) {
    if (s >= 60) [m, s] = [m + 1, 0];
    if (m >= 60) {
      const prev = clock.date(y, mo, d, h, 0, 0);
      [h, m] = [h + 1, 0];
      const next = clock.date(y, mo, d, h, 0, 0);
      // Moving to the next hour took more than an hour: we passed a repeated hour, search it again.
      if (dstOffset === 0 && next - prev > 3600) {
        h--;
        dstOffset = 3600;
      } else {
        dstOffset = 0;
      }
    }
    if (h >= 24) [d, h] = [d + 1, 0];
    if (d > daysInMonth(mo, y)) [mo, d] = [mo + 1, 1];
    if (mo > 12) [y, mo] = [y + 1, 1];
    if (y > MAX_YEAR) return undefined;
    if (!f.year(y)) {
      [y, mo, d, h, m, s, dstOffset] = [y + 1, 1, 1, 0, 0, 0, 0];
      continue outer;
    }
    while (!f.month(mo)) {
      [mo, d, h, m, s, dstOffset] = [mo + 1, 1, 0, 0, 0, 0];
      if (mo > 12) continue outer;
    }
    while (!f.dayOfMonth(d) || !f.dayOfWeek(clock.wall(clock.date(y, mo, d, h, m, s)).dow)) {
      [d, h, m, s, dstOffset] = [d + 1, 0, 0, 0, 0];
      if (d > daysInMonth(mo, y)) continue outer;
    }
    while (!f.hour(h)) {
      [h, m, s, dstOffset] = [h + 1, 0, 0, 0];
      if (h >= 24) continue outer;
    }
    while (!f.minute(m)) {
      [m, s] = [m + 1, 0];
      if (m >= 60) continue outer;
    }
    while (!f.second(s)) {
      s++;
      if (s >= 60) continue outer;
    }
    const found = clock.date(y, mo, d, h, m, s);
    // The wall time does not exist and Go moved it to another hour: Temporal skips it.
    if (clock.wall(found).h !== h) {
      [h, m, s] = [h + 1, 0, 0];
      continue outer;
    }
    return found + dstOffset;
  }
}

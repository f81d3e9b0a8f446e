import {
  FIELD_RULES,
  MAX_YEAR,
  type CalendarFieldName,
  type FieldRange,
  type StructuredCalendar,
} from './cron-fields';
import { rangeValues } from './field-parse';
import { daysInMonth } from '../parse/days-in-month';
import type { WallTime, ZoneClock } from './zone-clock';

/*
 * When a calendar fires next, in its zone, with the Temporal server's observable DST behaviour. The model
 * below was worked out by experiment against the server (ListScheduleMatchingTimes); every rule in it is
 * pinned by test/integration/preview-matching-times.test.ts, which must stay green.
 *
 * The search starts at S, the wall time of `after`, and walks forward: local dates, then the named hours
 * of each date, then the named minute:second pairs of each hour. Each wall time becomes an instant with
 * ZoneClock.date (Go's time.Date), and the first instant strictly after `after` wins. On ordinary days
 * that is simply the next matching time. Around clock changes four rules shape the result:
 *
 * 1. Gaps (clocks go forward). The first named time of an hour that date() moves into another hour ends
 *    that hour: Paris 02:30 on a spring day is not run at all. A 30-minute gap (Australia/Lord_Howe,
 *    02:00 -> 02:30) keeps the hour, so 02:15 runs at 02:45. In Pacific/Chatham (02:45 -> 03:45) a
 *    calendar naming 03:00 loses all of hour 3 that day, even 03:48, which exists.
 * 2. Replayed hours (clocks go back). date() resolves a repeated wall time to its first instant west of
 *    UTC and its second east of it. An hour whose next hour starts more than an hour later (the clock goes
 *    back during it or at its end) is walked twice: as itself, then once more with every instant one hour
 *    later, from the start of the hour. West of UTC that replays 01:xx EDT as 01:xx EST (New York runs
 *    01:30 twice); east of UTC the replayed hour is the one *before* the repeated one, so Paris runs 01:30
 *    CEST and again at 02:30 CEST, while 02:30 itself resolves to CET and runs once.
 * 3. Late start. When the wall clock already showed S's hour one hour before `after` (S is in the second
 *    pass of a repeated hour), the starting hour is walked once, every instant one hour later, and not
 *    replayed. So Paris `*\/15` goes 02:00 CEST, 02:15 CET, 03:30 CET: from 02:15 CET the next time
 *    after 02:15 in hour 2 is 02:30, resolved to 02:30 CET, moved to 03:30 CET. A 30-minute repeat
 *    (Lord_Howe, 02:00 -> 01:30) starts late only from 01:30 to 02:00 (+10:30); a 2-hour one
 *    (Antarctica/Troll, 03:00 -> 01:00) never does: an hour earlier the clock showed another hour.
 * 4. Weekdays. The weekday of the first date is S's; a later date takes the weekday of its local
 *    midnight as date() resolves it. A midnight that does not exist west of UTC (America/Santiago)
 *    resolves to the evening before, so a weekday-restricted calendar skips that date entirely, and one
 *    naming the day before runs on it. The server reads the weekday again each time it leaves an hour
 *    (at the next hour's start, which exists): so a Saturday calendar runs on that Sunday only when its
 *    first named time there exists (`0 9 * * SAT` at 09:00), and not at all for `0 * * * SAT`, whose
 *    00:00 does not exist.
 *
 * Only the starting hour looks at S's minute and second; hours before S's hour on the first date are
 * never revisited, so a replay that belongs to an earlier hour is lost once the search starts past it.
 */

type Matcher = (v: number) => boolean;

/** A calendar's named values in increasing order, for walking forward in time. */
export interface SortedFields {
  readonly months: readonly number[];
  readonly days: readonly number[];
  readonly hours: readonly number[];
  /** Named times within an hour, as `minute * 60 + second`. */
  readonly times: readonly number[];
  /** Whether each weekday (0 = Sunday) is named; absent when all are, which spares a zone lookup a day. */
  readonly weekdays?: readonly boolean[];
}

/** A calendar ready to match, in its zone. */
export interface CalendarMatcher {
  readonly clock: ZoneClock;
  readonly fields: Readonly<Record<CalendarFieldName, Matcher>>;
  readonly sorted: SortedFields;
}

const HOUR = 3600;

function matcher(ranges: readonly FieldRange[], name: CalendarFieldName): Matcher {
  if (name === 'year' && ranges.length === 0) return () => true;
  const values = new Set(rangeValues(ranges));
  return (v) => values.has(v);
}

function named(fields: CalendarMatcher['fields'], name: CalendarFieldName, max?: number): number[] {
  const rule = FIELD_RULES[name];
  const out: number[] = [];
  for (let v = rule.min; v <= (max ?? rule.max); v++) if (fields[name](v)) out.push(v);
  return out;
}

function sortFields(fields: CalendarMatcher['fields']): SortedFields {
  const seconds = named(fields, 'second');
  const weekdays = [0, 1, 2, 3, 4, 5, 6].map((v) => fields.dayOfWeek(v));
  return {
    months: named(fields, 'month'),
    days: named(fields, 'dayOfMonth'),
    hours: named(fields, 'hour'),
    times: named(fields, 'minute').flatMap((mi) => seconds.map((s) => mi * 60 + s)),
    ...(weekdays.every(Boolean) ? {} : { weekdays }),
  };
}

/** Prepares a parsed calendar for matching in a time zone. */
export function calendarMatcher(calendar: StructuredCalendar, clock: ZoneClock): CalendarMatcher {
  const fields = {} as Record<CalendarFieldName, Matcher>;
  for (const name of Object.keys(calendar) as CalendarFieldName[])
    fields[name] = matcher(calendar[name], name);
  return { clock, fields, sorted: sortFields(fields) };
}

/** Whether the wall time at an instant (Unix seconds) matches the calendar. */
export function calendarMatches(cal: CalendarMatcher, sec: number): boolean {
  return wallMatches(cal, cal.clock.wall(sec));
}

/** Whether a wall time (already read in the calendar's zone) matches the calendar. */
export function wallMatches({ fields: f }: CalendarMatcher, w: WallTime): boolean {
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

/** A local date being searched. */
interface LocalDate {
  readonly y: number;
  readonly mo: number;
  readonly d: number;
  /** Rule 4: its weekday was read at a midnight that resolves to another day (a gap at midnight). */
  readonly misread?: boolean;
}

const dateKey = (y: number, mo: number, d: number) => (y * 100 + mo) * 100 + d;

/** Rule 4: the weekday of a date after the first, read at its local midnight as date() resolves it. */
function weekdayAtMidnight(clock: ZoneClock, y: number, mo: number, d: number): number {
  return clock.wall(clock.date(y, mo, d, 0, 0, 0)).dow;
}

/** The weekday at the start of hour `h` of a date, as date() resolves it. */
function weekdayAt(clock: ZoneClock, day: LocalDate, h: number): number {
  return clock.wall(clock.date(day.y, day.mo, day.d, h, 0, 0)).dow;
}

/** The named dates from S's date on, up to MAX_YEAR. */
function* namedDates(cal: CalendarMatcher, start: WallTime): Generator<LocalDate> {
  const { months, days, weekdays } = cal.sorted;
  const startKey = dateKey(start.y, start.mo, start.d);
  for (let y = start.y; y <= MAX_YEAR; y++) {
    if (!cal.fields.year(y)) continue;
    for (const mo of months) {
      const last = daysInMonth(mo, y);
      for (const d of days) {
        if (d > last) break;
        const key = dateKey(y, mo, d);
        if (key < startKey) continue;
        if (weekdays && key !== startKey) {
          const weekday = weekdayAtMidnight(cal.clock, y, mo, d);
          if (!weekdays[weekday]) continue;
          if (weekday !== new Date(Date.UTC(y, mo - 1, d)).getUTCDay()) {
            yield { y, mo, d, misread: true };
            continue;
          }
        } else if (weekdays && !weekdays[start.dow]) continue;
        yield { y, mo, d };
      }
    }
  }
}

/** Rule 3: whether the wall clock already showed the hour of S one hour before `after` (S's hour repeats). */
function startsInRepeatedHour(clock: ZoneClock, start: WallTime, after: number): boolean {
  const hourBefore = clock.wall(after - HOUR);
  return hourBefore.h === start.h && hourBefore.d === start.d;
}

/** Rule 2: whether the hour after `h` starts more than an hour after `h` does (the clock goes back). */
function clockGoesBackAfter(clock: ZoneClock, day: LocalDate, h: number): boolean {
  return clock.date(day.y, day.mo, day.d, h + 1, 0, 0) - clock.date(day.y, day.mo, day.d, h, 0, 0) > HOUR;
}

/**
 * One walk through hour `h`: its named times from index `from`, each resolved by date() and moved `by`
 * seconds, until one lands strictly after `after` (returned) or date() moves one out of the hour (rule 1).
 */
function walkHour(
  cal: CalendarMatcher,
  day: LocalDate,
  h: number,
  from: number,
  by: number,
  after: number,
): number | undefined {
  const { clock, sorted } = cal;
  for (let i = from; i < sorted.times.length; i++) {
    const time = sorted.times[i]!;
    const at = clock.date(day.y, day.mo, day.d, h, Math.floor(time / 60), time % 60);
    if (clock.wall(at).h !== h) return undefined;
    if (at + by > after) return at + by;
  }
  return undefined;
}

/** Index of the first named time strictly after `minute:second` (binary search). */
function firstTimeAfter(times: readonly number[], mi: number, s: number): number {
  const target = mi * 60 + s;
  let [lo, hi] = [0, times.length];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid]! <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Hour `h` from its named time at index `from`, then replayed one hour later if the clock goes back (rule 2). */
function fireInHour(cal: CalendarMatcher, day: LocalDate, h: number, from: number, after: number) {
  const fire = walkHour(cal, day, h, from, 0, after);
  if (fire !== undefined || !clockGoesBackAfter(cal.clock, day, h)) return fire;
  return walkHour(cal, day, h, 0, HOUR, after);
}

/** The hour of S: only its times after S's minute:second, walked late and once when S is a repeat (rule 3). */
function fireInStartHour(cal: CalendarMatcher, day: LocalDate, start: WallTime, after: number) {
  const from = firstTimeAfter(cal.sorted.times, start.mi, start.s);
  if (startsInRepeatedHour(cal.clock, start, after)) return walkHour(cal, day, start.h, from, HOUR, after);
  return fireInHour(cal, day, start.h, from, after);
}

/** The first instant (Unix seconds) strictly after `after` that the calendar fires at, or undefined. */
export function nextCalendarTime(cal: CalendarMatcher, after: number): number | undefined {
  const start = cal.clock.wall(after);
  const startKey = dateKey(start.y, start.mo, start.d);
  for (const day of namedDates(cal, start)) {
    const firstDay = dateKey(day.y, day.mo, day.d) === startKey;
    for (const h of cal.sorted.hours) {
      if (firstDay && h < start.h) continue;
      const fire =
        firstDay && h === start.h
          ? fireInStartHour(cal, day, start, after)
          : fireInHour(cal, day, h, 0, after);
      if (fire !== undefined) return fire;
      // Rule 4: leaving an hour, the server reads the weekday again, at the next hour's start.
      if (day.misread && h < 23 && !cal.sorted.weekdays![weekdayAt(cal.clock, day, h + 1)]) break;
    }
  }
  return undefined;
}

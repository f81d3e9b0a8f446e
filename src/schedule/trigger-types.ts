import type { Duration } from '@temporalio/common';
import type { DstPolicy } from './dst-policy';

/*
 * What users write to say *when* a job runs. These objects are stored as they were given in the
 * schedule's memo, so that getJob() returns the trigger exactly as created.
 */

/**
 * Days a job does not run on, in its time zone: a date `'2027-12-24'`, a range of dates
 * `{ from: '2027-12-24', to: '2027-12-31' }`, the public holidays of a country or state from the
 * date-holidays library `{ holidays: 'FR' }` / `{ holidays: 'US-NY' }` (held for this year and the next
 * three, recomputed on every write of the job), or a calendar `{ calendar: { month: 'AUG' } }` (whole days
 * unless it gives a time). Compiled to Temporal's `skip`.
 */
export type Exclusion =
  string | { from: string; to: string } | { holidays: string } | { calendar: CalendarFields };

/** What calendar and interval triggers may leave out. */
export interface Exclusions {
  /** Days (or calendar times) the job does not run on. See {@link Exclusion}. */
  exclude?: Exclusion | Exclusion[];
  /** Run Monday to Friday only (Saturdays and Sundays skipped), and not on the holidays in `exclude`. @default false */
  businessDays?: boolean;
}

/**
 * Cron in Temporal's dialect: 5 fields, or 7 (seconds first, year last), or `@daily` and friends; plus
 * Quartz's day forms (`L`, `L-3`, `LW`, `15W`, `FRIL`, `MON#2`), compiled exactly.
 */
export interface CronTrigger extends Exclusions {
  cron: string | string[];
  /** IANA time zone. @default the scheduler's `timezone` (itself 'UTC' by default) */
  timezone?: string;
  /** What runs on DST days (see docs/cron-and-timezones.md). @default the scheduler's `dst`, else Temporal's own behaviour */
  dst?: DstPolicy;
}

/**
 * Calendar fields as Temporal's `ScheduleSpec.calendars` takes them (e.g. `{ hour: 9, dayOfWeek: 'MONDAY' }`).
 * Absent fields take Temporal's defaults: second, minute, hour 0; the date fields every value. A list of
 * calendars fires when any of them matches. See docs/cron-and-timezones.md.
 */
export interface CalendarTrigger extends Exclusions {
  calendar: CalendarFields | CalendarFields[];
  timezone?: string;
  /** What runs on DST days (see docs/cron-and-timezones.md). @default the scheduler's `dst`, else Temporal's own behaviour */
  dst?: DstPolicy;
}

/** An inclusive range of a calendar field, e.g. `{ start: 'MONDAY', end: 'FRIDAY' }` or `{ start: 0, end: 59, step: 15 }`. */
export interface CalendarRange {
  start: number | string;
  end?: number | string;
  step?: number;
}

/**
 * A value of a calendar field: a number; a name (`'MONDAY'`, `'MON'`, `'JANUARY'`, `'JAN'`); `'*'`; a
 * cron-style expression without commas (`'9-17'`, `'*\/15'`, `'MON-FRI'`); a range object; or a list of them.
 */
export type CalendarValue = number | string | CalendarRange | (number | string | CalendarRange)[];

export interface CalendarFields {
  second?: CalendarValue;
  minute?: CalendarValue;
  hour?: CalendarValue;
  dayOfMonth?: CalendarValue;
  month?: CalendarValue;
  year?: CalendarValue;
  dayOfWeek?: CalendarValue;
  comment?: string;
}

/** Every fixed interval, counted from the Unix epoch plus `offset` (so `{ hours: 2, offset: '1h' }` fires at 01:00, 03:00, ...). */
export interface IntervalTrigger extends Exclusions {
  every?: Duration;
  seconds?: number;
  minutes?: number;
  hours?: number;
  days?: number;
  weeks?: number;
  offset?: Duration;
  timezone?: string;
}

/** A single run at an instant (ISO 8601 string with an offset or `Z`, or a Date). */
export interface OneOffTrigger {
  runAt: string | Date;
  timezone?: string;
}

export type Trigger = CronTrigger | CalendarTrigger | IntervalTrigger | OneOffTrigger;

export type TriggerKind = 'cron' | 'calendar' | 'interval' | 'once';

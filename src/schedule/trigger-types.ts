import type { Duration } from '@temporalio/common';
import type { DstPolicy } from './dst-policy';

/*
 * What users write to say *when* a job runs. These objects are stored as they were given in the
 * schedule's memo, so that getJob() returns the trigger exactly as created.
 */

/** Cron in Temporal's dialect: 5 fields, or 7 (seconds first, year last), or `@daily` and friends. */
export interface CronTrigger {
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
export interface CalendarTrigger {
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
export interface IntervalTrigger {
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

/*
 * Constants of Temporal's calendar dialect, shared by cron strings and calendar triggers. They are the
 * limits the Temporal server applies (it decides when a schedule fires), as documented and as observed:
 * years 2000-2100, day-of-week 0-7 with 7 read as Sunday, month names matched by prefix (3+ letters),
 * day names by prefix (2+ letters).
 */

/** A field of a calendar, in the order of a 7-field cron string. */
export type CalendarFieldName = 'second' | 'minute' | 'hour' | 'dayOfMonth' | 'month' | 'dayOfWeek' | 'year';

/** What a field accepts. */
export interface FieldRule {
  readonly field: CalendarFieldName;
  /** How messages name the field, e.g. "day-of-month". */
  readonly label: string;
  readonly min: number;
  readonly max: number;
  /** Full names, index 0 meaning value `nameBase`. */
  readonly names?: readonly string[];
  readonly nameBase?: number;
  /** Shortest name prefix Temporal accepts. */
  readonly minPrefix?: number;
}

/** Month names as the Temporal SDK spells them. */
export const MONTH_NAMES = [
  'JANUARY',
  'FEBRUARY',
  'MARCH',
  'APRIL',
  'MAY',
  'JUNE',
  'JULY',
  'AUGUST',
  'SEPTEMBER',
  'OCTOBER',
  'NOVEMBER',
  'DECEMBER',
] as const;

/** Day names as the Temporal SDK spells them, Sunday first (value 0). */
export const DAY_NAMES = [
  'SUNDAY',
  'MONDAY',
  'TUESDAY',
  'WEDNESDAY',
  'THURSDAY',
  'FRIDAY',
  'SATURDAY',
] as const;

/** First and last year the Temporal server accepts in a calendar. */
export const MIN_YEAR = 2000;
export const MAX_YEAR = 2100;

export const FIELD_RULES: Readonly<Record<CalendarFieldName, FieldRule>> = {
  second: { field: 'second', label: 'second', min: 0, max: 59 },
  minute: { field: 'minute', label: 'minute', min: 0, max: 59 },
  hour: { field: 'hour', label: 'hour', min: 0, max: 23 },
  dayOfMonth: { field: 'dayOfMonth', label: 'day-of-month', min: 1, max: 31 },
  month: { field: 'month', label: 'month', min: 1, max: 12, names: MONTH_NAMES, nameBase: 1, minPrefix: 3 },
  dayOfWeek: {
    field: 'dayOfWeek',
    label: 'day-of-week',
    min: 0,
    max: 7,
    names: DAY_NAMES,
    nameBase: 0,
    minPrefix: 2,
  },
  year: { field: 'year', label: 'year', min: MIN_YEAR, max: MAX_YEAR },
};

/** Fields of a 5-field and of a 7-field cron string, in order. */
export const FIVE_FIELDS: readonly CalendarFieldName[] = [
  'minute',
  'hour',
  'dayOfMonth',
  'month',
  'dayOfWeek',
];
export const SEVEN_FIELDS: readonly CalendarFieldName[] = [
  'second',
  'minute',
  'hour',
  'dayOfMonth',
  'month',
  'dayOfWeek',
  'year',
];

/** What an absent field means (Temporal's defaults): the time fields 0, the date fields every value. */
export const FIELD_DEFAULTS: Readonly<Record<CalendarFieldName, string>> = {
  second: '0',
  minute: '0',
  hour: '0',
  dayOfMonth: '*',
  month: '*',
  dayOfWeek: '*',
  year: '*',
};

/** Aliases Temporal accepts, with the 5-field string each one means. */
export const CRON_ALIASES: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** An inclusive range with a step, as Temporal stores it (`end >= start`, `step >= 1`). */
export interface FieldRange {
  readonly start: number;
  readonly end: number;
  readonly step: number;
}

/**
 * A calendar once parsed: for each field the ranges it matches. A `year` of `[]` matches every year.
 * Day-of-week uses 0-6 (Sunday 0), as the server stores it.
 */
export type StructuredCalendar = Readonly<Record<CalendarFieldName, readonly FieldRange[]>>;

/** Month names for messages, e.g. "FEB". */
export function monthAbbrev(month: number): string {
  return MONTH_NAMES[month - 1]!.slice(0, 3);
}

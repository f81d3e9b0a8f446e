import { DateTime } from 'luxon';
import { compileCalendar } from './calendar';
import { MAX_YEAR, MIN_YEAR, type FieldRange, type StructuredCalendar } from './cron-fields';
import { InvalidTriggerError } from './errors';
import { horizonYears, publicHolidays } from './holidays';
import { compress } from './quartz-days';
import type { CalendarFields, Exclusion } from './trigger-types';
import { describeValue } from '../errors';

/*
 * A trigger's `exclude` and `businessDays`, compiled into Temporal's `skip`: calendars whose matching
 * times the schedule does not fire at (the server tests each fire time against them, in the schedule's
 * zone, with the real weekday). Dates and date ranges become whole-day calendars per month; a holiday set
 * becomes its public holidays in the horizon years (holidays.ts); `businessDays: true` skips Saturdays and
 * Sundays. Each skip calendar keeps a label, so preview can say why a time was left out.
 */

/** One skip calendar and what it stands for, e.g. `holiday FR: Christmas Day` or `weekend`. */
export interface CompiledExclusion {
  readonly calendar: StructuredCalendar;
  readonly label: string;
}

/** A trigger's exclusions, compiled. */
export interface CompiledExclusions {
  readonly skip: readonly CompiledExclusion[];
  /** The years holiday sets are held for (absent without a holiday set). */
  readonly horizon?: { readonly from: number; readonly to: number };
}

/** Longest date range one exclusion may cover (a year: longer ones are better written as calendars). */
const MAX_RANGE_DAYS = 366;

const one = (v: number): FieldRange[] => [{ start: v, end: v, step: 1 }];
const every = (min: number, max: number): FieldRange[] => [{ start: min, end: max, step: 1 }];

/** A whole-day calendar for some days of one month of one year. */
function daysCalendar(y: number, mo: number, days: number[]): StructuredCalendar {
  return {
    second: every(0, 59),
    minute: every(0, 59),
    hour: every(0, 23),
    dayOfMonth: compress(days),
    month: one(mo),
    dayOfWeek: every(0, 6),
    year: one(y),
  };
}

/** Whole-day calendars for a list of dates, one per month, all with one label. */
function datesCalendars(dates: readonly DateTime[], label: () => string): CompiledExclusion[] {
  const months = new Map<string, DateTime[]>();
  for (const d of dates) {
    const key = `${d.year}-${d.month}`;
    months.set(key, [...(months.get(key) ?? []), d]);
  }
  return [...months.values()].map((ds) => ({
    calendar: daysCalendar(
      ds[0]!.year,
      ds[0]!.month,
      ds.map((d) => d.day),
    ),
    label: label(),
  }));
}

function date(value: unknown, field: string): DateTime {
  const d =
    typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)
      ? DateTime.fromISO(value, { zone: 'UTC' })
      : undefined;
  if (!d?.isValid) {
    throw new InvalidTriggerError(
      field,
      `${field} ${describeValue(value)} is not a date: write "YYYY-MM-DD", e.g. "2027-12-24" (a day in the job's time zone)`,
    );
  }
  if (d.year < MIN_YEAR || d.year > MAX_YEAR) {
    throw new InvalidTriggerError(
      field,
      `${field} ${d.toISODate()} is outside the years Temporal schedules (2000-2100)`,
    );
  }
  return d;
}

const KINDS =
  'a date "YYYY-MM-DD", { from, to } (dates), { holidays: "FR" } or { calendar: { month: "AUG" } }';

/** One item of `exclude`. */
function compileOne(item: Exclusion, field: string, now: Date): CompiledExclusion[] {
  if (typeof item === 'string') {
    const d = date(item, field);
    return datesCalendars([d], () => item);
  }
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    throw new InvalidTriggerError(field, `${field} ${describeValue(item)} is not ${KINDS}`);
  }
  const keys = Object.keys(item).sort().join(',');
  if (keys === 'from,to') {
    const { from, to } = item as { from: unknown; to: unknown };
    const [a, b] = [date(from, `${field}.from`), date(to, `${field}.to`)];
    const days = b.diff(a, 'days').days + 1;
    if (days < 1 || days > MAX_RANGE_DAYS) {
      throw new InvalidTriggerError(
        field,
        `${field} from ${String(from)} to ${String(to)} must cover 1 to ${MAX_RANGE_DAYS} days (to on or after from); for a yearly period write a calendar, e.g. { calendar: { month: 'AUG' } }`,
      );
    }
    const dates = Array.from({ length: days }, (_, i) => a.plus({ days: i }));
    return datesCalendars(dates, () => `${String(from)} to ${String(to)}`);
  }
  if (keys === 'holidays') {
    const code = (item as { holidays: string }).holidays;
    const holidays = publicHolidays(code, horizonYears(now), `${field}.holidays`);
    // One calendar per holiday, so that preview can name it.
    return holidays.flatMap((h) =>
      datesCalendars(
        [DateTime.fromISO(h.date, { zone: 'UTC' })],
        () => `holiday ${code.toUpperCase()}: ${h.name}`,
      ),
    );
  }
  if (keys === 'calendar') {
    const fields = (item as { calendar: CalendarFields }).calendar;
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
      throw new InvalidTriggerError(
        `${field}.calendar`,
        `${field}.calendar must be an object such as { month: 'AUG' }`,
      );
    }
    // A whole day unless the time is given: "every August" means all of August.
    const wholeDays = { hour: '*', minute: '*', second: '*', ...fields };
    return compileCalendar(wholeDays, `${field}.calendar`).map((c) => ({
      calendar: c.calendar,
      label: fields.comment ?? `calendar ${JSON.stringify(fields)}`,
    }));
  }
  throw new InvalidTriggerError(field, `${field} ${describeValue(item)} is not ${KINDS}`);
}

/** Saturdays and Sundays, all day: what `businessDays: true` skips besides the holidays in `exclude`. */
const WEEKEND: CompiledExclusion = {
  calendar: {
    second: every(0, 59),
    minute: every(0, 59),
    hour: every(0, 23),
    dayOfMonth: every(1, 31),
    month: every(1, 12),
    dayOfWeek: [
      { start: 0, end: 0, step: 1 },
      { start: 6, end: 6, step: 1 },
    ],
    year: [],
  },
  label: 'weekend',
};

/**
 * Compiles a trigger's `exclude` and `businessDays`.
 *
 * @param now the start of the holiday horizon (this year and the next three).
 * @throws InvalidTriggerError naming the bad item (`exclude[2]`), UnknownHolidaysError for an unknown set.
 */
export function compileExclusions(
  exclude: Exclusion | Exclusion[] | undefined,
  businessDays: boolean | undefined,
  now: Date,
): CompiledExclusions {
  if (businessDays !== undefined && typeof businessDays !== 'boolean') {
    throw new InvalidTriggerError(
      'businessDays',
      `businessDays must be true or false, got ${describeValue(businessDays)}`,
    );
  }
  const list = exclude === undefined ? [] : Array.isArray(exclude) ? Array.from(exclude) : [exclude];
  const skip = list.flatMap((item, i) =>
    compileOne(item, Array.isArray(exclude) ? `exclude[${i}]` : 'exclude', now),
  );
  if (businessDays) skip.push(WEEKEND);
  const years = horizonYears(now);
  const holidays = list.some((item) => typeof item === 'object' && item !== null && 'holidays' in item);
  return { skip, ...(holidays ? { horizon: { from: years[0]!, to: years[years.length - 1]! } } : {}) };
}

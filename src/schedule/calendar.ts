import type { CalendarSpec, Range } from '@temporalio/client';
import {
  DAY_NAMES,
  FIELD_DEFAULTS,
  FIELD_RULES,
  MAX_YEAR,
  MIN_YEAR,
  MONTH_NAMES,
  monthAbbrev,
  SEVEN_FIELDS,
  type CalendarFieldName,
  type FieldRange,
  type StructuredCalendar,
} from './cron-fields';
import { InvalidTriggerError } from './errors';
import { parseField, rangeValues } from './field-parse';
import { daysInMonth } from '../parse/days-in-month';
import { dayCalendars, parseDayField } from './quartz-days';
import type { CalendarFields, CalendarValue } from './trigger-types';
import { describeValue } from '../errors';

/*
 * Calendar triggers: `{ hour: 9, dayOfWeek: 'MON-FRI' }` and friends, compiled to the TS SDK's CalendarSpec
 * (explicit ranges, months and days as names) and checked with the same field parser as cron strings, so
 * both syntaxes accept and reject exactly the same values. Absent fields take Temporal's defaults: second,
 * minute and hour 0; day-of-month, month, day-of-week and year every value.
 */

/**
 * A calendar checked and compiled: `spec` goes to Temporal, `calendar` is what it means (for preview). A
 * calendar with a Quartz day form (`dayOfMonth: 'L'`, `dayOfWeek: 'FRI#2'`) compiles to several.
 */
export interface CompiledCalendar {
  readonly spec: CalendarSpec;
  readonly calendar: StructuredCalendar;
  /** Whether it comes from a Quartz day form (see weekday-misread.ts). */
  readonly quartz: boolean;
}

const MAX_COMMENT = 200;
const KNOWN = new Set<string>([...SEVEN_FIELDS, 'comment']);
const HINTS: Record<string, string> = {
  day: 'dayOfMonth',
  day_of_month: 'dayOfMonth',
  day_of_week: 'dayOfWeek',
  weekday: 'dayOfWeek',
  dow: 'dayOfWeek',
  days: 'dayOfMonth',
  hours: 'hour',
  minutes: 'minute',
  seconds: 'second',
  months: 'month',
  week: 'dayOfWeek',
};

function fail(field: string, message: string): never {
  throw new InvalidTriggerError(field, message);
}

/** Turns one item of a calendar value into a field expression the shared parser reads. */
function itemExpression(item: unknown, where: string): string {
  if (typeof item === 'number') return String(item);
  if (typeof item === 'string') {
    if (item.includes(','))
      fail(where, `${where} item "${item}" has a comma: give a list as an array instead`);
    return item;
  }
  if (typeof item === 'object' && item !== null && 'start' in item) {
    const r = item as { start: unknown; end?: unknown; step?: unknown };
    const unknown = Object.keys(r).find((k) => !RANGE_KEYS.includes(k));
    if (unknown !== undefined) {
      fail(where, `${where} range has no option "${unknown}": a range is { start, end, step }`);
    }
    const start = boundExpression(r.start, where);
    const end = r.end === undefined ? undefined : boundExpression(r.end, where);
    if (r.step !== undefined && (typeof r.step !== 'number' || !Number.isInteger(r.step) || r.step < 1)) {
      fail(where, `${where} step ${describeValue(r.step)} must be a whole number of 1 or more`);
    }
    return `${start}${end === undefined ? '' : `-${end}`}${r.step === undefined ? '' : `/${r.step}`}`;
  }
  return fail(
    where,
    `${where} value ${describeValue(item)} is not a number, a name, "*", a range { start, end, step } or a list of them`,
  );
}

const RANGE_KEYS = ['start', 'end', 'step'];

/** A range's start or end: one value, never a range or list of its own. */
function boundExpression(bound: unknown, where: string): string {
  if (typeof bound === 'number' || typeof bound === 'string') return itemExpression(bound, where);
  return fail(where, `${where} range bound ${describeValue(bound)} is not a number or a name`);
}

/** A field's value as the expression the shared parsers read. */
function valueExpression(value: CalendarValue, where: string): string {
  const items = Array.isArray(value) ? Array.from(value) : [value];
  if (items.length === 0) fail(where, `${where} is an empty list: omit it, or write "*" for every value`);
  return items.map((item) => itemExpression(item, where)).join(',');
}

function toSdkRanges(
  name: CalendarFieldName,
  ranges: readonly FieldRange[],
): CalendarSpec[keyof CalendarSpec] {
  if (name === 'year' && ranges.length === 0) return '*';
  const label = (v: number): number | string =>
    name === 'month' ? MONTH_NAMES[v - 1]! : name === 'dayOfWeek' ? DAY_NAMES[v]! : v;
  return ranges.map((r) => ({ start: label(r.start), end: label(r.end), step: r.step }) as Range<never>);
}

/** A structured calendar as the SDK's CalendarSpec, every field explicit. */
export function toCalendarSpec(calendar: StructuredCalendar, comment?: string): CalendarSpec {
  const spec = Object.fromEntries(SEVEN_FIELDS.map((name) => [name, toSdkRanges(name, calendar[name])]));
  return { ...spec, ...(comment !== undefined ? { comment } : {}) };
}

/**
 * Refuses a calendar whose days never exist (February 30, April 31, February 29 in listed non-leap
 * years): Temporal accepts it and silently never runs the job.
 *
 * @returns a sentence saying why, or undefined when some day exists.
 */
export function neverMatches(calendar: StructuredCalendar): string | undefined {
  const years = calendar.year.length === 0 ? [2000] : rangeValues(calendar.year); // 2000 is a leap year
  const months = rangeValues(calendar.month);
  const days = rangeValues(calendar.dayOfMonth);
  const exists = years.some((y) => months.some((m) => days.some((d) => d <= daysInMonth(m, y))));
  if (exists || years.some((y) => y < MIN_YEAR || y > MAX_YEAR)) return undefined;
  const monthList = months.map(monthAbbrev).join(', ');
  return `${monthList} ${months.length === 1 ? 'has' : 'have'} no day ${days.join(', ')}${
    calendar.year.length > 0 ? ` in ${years.join(', ')}` : ''
  }, so Temporal would never run the job`;
}

/**
 * Checks one calendar and compiles it (into several when it has a Quartz day form).
 *
 * @param where how messages name it, e.g. `calendar` or `calendar[1]`.
 * @throws InvalidTriggerError naming the bad field (e.g. `calendar.dayOfWeek`).
 */
export function compileCalendar(fields: CalendarFields, where = 'calendar'): CompiledCalendar[] {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    fail(where, `${where} must be an object such as { hour: 9, dayOfWeek: 'MON-FRI' }`);
  }
  const keys = Object.keys(fields).filter((k) => (fields as Record<string, unknown>)[k] !== undefined);
  for (const key of keys) {
    if (!KNOWN.has(key)) {
      const hint = Object.hasOwn(HINTS, key) ? `did you mean "${HINTS[key]}"? ` : '';
      fail(`${where}.${key}`, `${where} has no field "${key}": ${hint}allowed: ${[...KNOWN].join(', ')}`);
    }
  }
  if (keys.filter((k) => k !== 'comment').length === 0) {
    fail(where, `${where} names no field: give at least one, e.g. { hour: 9, dayOfWeek: 'MONDAY' }`);
  }
  if (
    fields.comment !== undefined &&
    (typeof fields.comment !== 'string' || fields.comment.length > MAX_COMMENT)
  ) {
    fail(`${where}.comment`, `${where}.comment must be a string of at most ${MAX_COMMENT} characters`);
  }
  const calendar = {} as Record<CalendarFieldName, readonly FieldRange[]>;
  const spec: Record<string, unknown> = {};
  const expressions = {} as Record<CalendarFieldName, string>;
  for (const name of SEVEN_FIELDS) {
    const value = fields[name];
    const subject = value === undefined ? name : `${where}.${name}`;
    const expr = value === undefined ? FIELD_DEFAULTS[name] : valueExpression(value, subject);
    expressions[name] = expr;
    if (name === 'dayOfMonth' || name === 'dayOfWeek') continue;
    calendar[name] = parseField(expr, FIELD_RULES[name], subject, (m) => fail(subject, m));
    if (value !== undefined) spec[name] = toSdkRanges(name, calendar[name]);
  }
  const [dayOfMonth, dayOfWeek] = (['dayOfMonth', 'dayOfWeek'] as const).map((name) => {
    const subject = fields[name] === undefined ? name : `${where}.${name}`;
    return parseDayField(name, expressions[name], subject, (m) => fail(subject, m));
  }) as [ReturnType<typeof parseDayField>, ReturnType<typeof parseDayField>];
  const calendars = dayCalendars(calendar, dayOfMonth, dayOfWeek);
  if (calendars.length === 0) {
    fail(
      `${where}.dayOfMonth`,
      `${where}.dayOfMonth names no day that exists with its month, dayOfWeek and year, so Temporal would never run the job`,
    );
  }
  if (dayOfMonth.quartz || dayOfWeek.quartz) {
    return calendars.map((c) => ({ spec: toCalendarSpec(c, fields.comment), calendar: c, quartz: true }));
  }
  if (fields.dayOfMonth !== undefined) spec.dayOfMonth = toSdkRanges('dayOfMonth', dayOfMonth.ranges);
  if (fields.dayOfWeek !== undefined) spec.dayOfWeek = toSdkRanges('dayOfWeek', dayOfWeek.ranges);
  if (fields.comment !== undefined) spec.comment = fields.comment;
  const never = neverMatches(calendars[0]!);
  if (never) fail(`${where}.dayOfMonth`, `${where}.dayOfMonth names no day that exists: ${never}`);
  return [{ spec: spec, calendar: calendars[0]!, quartz: false }];
}

/** Checks a calendar trigger's value (one calendar or a list: a time matches if any calendar does). */
export function compileCalendars(value: CalendarFields | CalendarFields[]): CompiledCalendar[] {
  const list = Array.isArray(value) ? Array.from(value) : [value]; // Array.from: holes become undefined (a typed error), where map() would skip them
  if (list.length === 0)
    fail('calendar', 'calendar needs at least one entry, e.g. { hour: 9, dayOfWeek: "MONDAY" }');
  return list.flatMap((fields, i) =>
    compileCalendar(fields, Array.isArray(value) ? `calendar[${i}]` : 'calendar'),
  );
}

import { FIELD_RULES, MAX_YEAR, MIN_YEAR, type FieldRange, type StructuredCalendar } from './cron-fields';
import { parseField, rangeValues, type FailFn } from './field-parse';
import { calendarKey } from './spec-calendar';

/*
 * Quartz's day forms, compiled into plain Temporal calendars that mean exactly the same days:
 *
 *   day-of-month  L (last day), L-n (n days before it), LW (last weekday), nW (weekday nearest the nth)
 *   day-of-week   dL / FRIL (last Friday of the month), d#n / MON#2 (the nth Monday)
 *
 * Temporal has none of these, but a calendar matches a day only when day-of-month AND day-of-week both
 * match, and a calendar's year field takes lists. So each form is a set of conditions "a month of length
 * N, one of these days, one of these weekdays": the last day is day 31 of 31-day months, 30 of 30-day
 * months, 29 of February in leap years and 28 in the others; the second Monday is days 8-14 AND Monday;
 * the weekday nearest the 15th is the 15th AND MON-FRI, or the 14th AND Friday (the 15th is a Saturday),
 * or the 16th AND Monday (it is a Sunday). Every form is static: no list of dates, so no horizon.
 * Conditions of the two fields are intersected (Temporal's AND), then grouped into as few calendars as
 * keep them exact. Weekday numbers follow this dialect (0 or 7 = Sunday, 5 = Friday), not Quartz's
 * (1 = Sunday): names are clearer.
 */

/** Month lengths; February is 28 or 29 by year. */
type MonthLength = 28 | 29 | 30 | 31;
const LENGTHS: readonly MonthLength[] = [28, 29, 30, 31];
const MONTHS_OF_LENGTH: Readonly<Record<30 | 31, readonly number[]>> = {
  31: [1, 3, 5, 7, 8, 10, 12],
  30: [4, 6, 9, 11],
};
const ALL_DAYS = Array.from({ length: 31 }, (_, i) => i + 1);
const ALL_WEEKDAYS = [0, 1, 2, 3, 4, 5, 6];
const [MON, FRI] = [1, 5];
const MON_FRI = [1, 2, 3, 4, 5];

/** Days of a month of some lengths that are on some weekdays. */
interface DayCondition {
  readonly lengths: readonly MonthLength[];
  readonly days: readonly number[];
  readonly weekdays: readonly number[];
}

const per = (f: (len: MonthLength) => DayCondition[]): DayCondition[] => LENGTHS.flatMap(f);
const on = (len: MonthLength, days: number[], weekdays = ALL_WEEKDAYS): DayCondition[] =>
  days.every((d) => d >= 1 && d <= len) ? [{ lengths: [len], days, weekdays }] : [];

/** The weekday nearest the nth (Quartz `nW`), never crossing into another month; none when it has no nth. */
function nearestWeekday(n: number, len: MonthLength): DayCondition[] {
  if (n > len) return [];
  return [
    ...on(len, [n], MON_FRI),
    ...(n > 1 ? on(len, [n - 1], [FRI]) : on(len, [3], [MON])), // the nth is a Saturday
    ...(n < len ? on(len, [n + 1], [MON]) : on(len, [n - 2], [FRI])), // the nth is a Sunday
  ];
}

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

/** A Quartz day-of-month item, or undefined when it is none. */
function dayOfMonthForm(item: string, subject: string, fail: FailFn): DayCondition[] | undefined {
  const upper = item.toUpperCase();
  if (upper === 'L') return per((len) => on(len, [len]));
  if (upper === 'LW') {
    return per((len) => [
      ...on(len, [len], MON_FRI),
      ...on(len, [len - 1], [FRI]),
      ...on(len, [len - 2], [FRI]),
    ]);
  }
  const before = /^L-(\d+)$/.exec(upper);
  if (before) {
    const n = Number(before[1]);
    if (n > 30) fail(`${subject} "${item}": L-n counts at most 30 days back from the last day`);
    return per((len) => on(len, [len - n]));
  }
  const nearest = /^(\d+)W$/.exec(upper);
  if (nearest) {
    const n = Number(nearest[1]);
    if (n < 1 || n > 31) fail(`${subject} "${item}": the day before W must be 1-31`);
    return per((len) => nearestWeekday(n, len));
  }
  return undefined;
}

/** One weekday of a Quartz day-of-week item (`FRI`, `5`, `7` = Sunday). */
function oneWeekday(text: string, item: string, subject: string, fail: FailFn): number {
  const values = rangeValues(parseField(text, FIELD_RULES.dayOfWeek, subject, fail));
  if (values.length !== 1 || /[-/*]/.test(text)) {
    fail(`${subject} "${item}" names more than one weekday: write one, e.g. "FRIL" or "MON#2"`);
  }
  return values[0]!;
}

/** A Quartz day-of-week item, or undefined when it is none. */
function dayOfWeekForm(item: string, subject: string, fail: FailFn): DayCondition[] | undefined {
  if (/^L$/i.test(item)) {
    fail(
      `${subject} "L" alone means Saturday in Quartz: write the weekday whose last occurrence you mean, e.g. "FRIL" (last Friday)`,
    );
  }
  const last = /^(.+)L$/i.exec(item);
  if (last) {
    const weekday = oneWeekday(last[1]!, item, subject, fail);
    return per((len) => on(len, range(len - 6, len), [weekday]));
  }
  const nth = /^(.+)#(.*)$/.exec(item);
  if (nth) {
    const weekday = oneWeekday(nth[1]!, item, subject, fail);
    const n = Number(nth[2]);
    if (!/^[1-5]$/.test(nth[2]!))
      fail(`${subject} "${item}": the number after # must be 1-5 (the nth one of the month)`);
    return per((len) => (len >= n * 7 - 6 ? on(len, range(n * 7 - 6, Math.min(n * 7, len)), [weekday]) : []));
  }
  return undefined;
}

/** A day field read as conditions: Quartz items, plus one condition for the plain items, if any. */
function dayConditions(
  field: 'dayOfMonth' | 'dayOfWeek',
  expr: string,
  subject: string,
  fail: FailFn,
): { conditions: DayCondition[]; quartz: boolean; plain: FieldRange[] } {
  const conditions: DayCondition[] = [];
  const plainItems: string[] = [];
  for (const item of expr.trim().split(',')) {
    const form =
      field === 'dayOfMonth' ? dayOfMonthForm(item, subject, fail) : dayOfWeekForm(item, subject, fail);
    if (form) conditions.push(...form);
    else plainItems.push(item);
  }
  const quartz = plainItems.length < expr.trim().split(',').length;
  const plain =
    plainItems.length > 0 ? parseField(plainItems.join(','), FIELD_RULES[field], subject, fail) : [];
  if (plainItems.length > 0) {
    const values = rangeValues(plain);
    conditions.push(
      field === 'dayOfMonth'
        ? { lengths: LENGTHS, days: values, weekdays: ALL_WEEKDAYS }
        : { lengths: LENGTHS, days: ALL_DAYS, weekdays: values },
    );
  }
  return { conditions, quartz, plain };
}

/** A day field as parsed: its plain ranges, and its meaning as conditions (for Quartz's forms). */
export interface DayField {
  /** The plain items (Temporal's own dialect) as ranges; `[]` when the field has only Quartz forms. */
  readonly ranges: FieldRange[];
  readonly conditions: DayCondition[];
  /** Whether a Quartz form is present: the calendar must then be expanded ({@link dayCalendars}). */
  readonly quartz: boolean;
}

/**
 * Parses day-of-month or day-of-week, with Quartz's forms besides Temporal's own (the plain items go
 * through the shared field parser, with its checks and messages).
 */
export function parseDayField(
  field: 'dayOfMonth' | 'dayOfWeek',
  expr: string,
  subject: string,
  fail: FailFn,
): DayField {
  const { conditions, quartz, plain } = dayConditions(field, expr, subject, fail);
  return { ranges: plain, conditions, quartz };
}

/**
 * The plain calendars a calendar with these day fields means: itself when neither has a Quartz form,
 * else the expansion ({@link expandDays}); `[]` when no day exists.
 */
export function dayCalendars(
  base: StructuredCalendar,
  dayOfMonth: DayField,
  dayOfWeek: DayField,
): StructuredCalendar[] {
  if (!dayOfMonth.quartz && !dayOfWeek.quartz) {
    return [{ ...base, dayOfMonth: dayOfMonth.ranges, dayOfWeek: dayOfWeek.ranges }];
  }
  return expandDays(base, dayOfMonth.conditions, dayOfWeek.conditions);
}

const intersect = (a: readonly number[], b: readonly number[]) => a.filter((v) => b.includes(v));

/** Values as few ranges: runs of consecutive values (step 1), or one stepped range when they are evenly spaced. */
export function compress(values: readonly number[]): FieldRange[] {
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  if (sorted.length > 2) {
    const step = sorted[1]! - sorted[0]!;
    if (step > 1 && sorted.every((v, i) => v === sorted[0]! + i * step)) {
      return [{ start: sorted[0]!, end: sorted[sorted.length - 1]!, step }];
    }
  }
  const out: FieldRange[] = [];
  for (const v of sorted) {
    const last = out[out.length - 1];
    if (last && last.end === v - 1) out[out.length - 1] = { ...last, end: v };
    else out.push({ start: v, end: v, step: 1 });
  }
  return out;
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** The years of February of one length, within the calendar's own years (`[]`: every year). */
function februaryYears(years: readonly FieldRange[], leap: boolean): FieldRange[] {
  if (years.length === 0) {
    // Every year the server accepts (2000-2100), by residue: exact and short.
    return leap
      ? [{ start: 2000, end: 2096, step: 4 }]
      : [
          { start: 2001, end: 2097, step: 4 },
          { start: 2002, end: 2098, step: 4 },
          { start: 2003, end: 2099, step: 4 },
          { start: 2100, end: 2100, step: 1 },
        ];
  }
  return compress(rangeValues(years).filter((y) => y >= MIN_YEAR && y <= MAX_YEAR && isLeap(y) === leap));
}

/**
 * The plain calendars meaning `base` (its time, month and year fields) on the days both conditions
 * lists allow. Lengths whose days come out equal share one calendar; February goes with them only when
 * both of its lengths do, else it gets its own calendar with a year list.
 */
function expandDays(
  base: StructuredCalendar,
  dayOfMonth: readonly DayCondition[],
  dayOfWeek: readonly DayCondition[],
): StructuredCalendar[] {
  const groups = new Map<string, { days: number[]; weekdays: number[]; lengths: Set<MonthLength> }>();
  for (const a of dayOfMonth) {
    for (const b of dayOfWeek) {
      const weekdays = intersect(a.weekdays, b.weekdays);
      if (weekdays.length === 0) continue;
      for (const len of intersect(a.lengths, b.lengths) as MonthLength[]) {
        const days = intersect(a.days, b.days).filter((d) => d <= len);
        if (days.length === 0) continue;
        const key = `${days.join(',')}|${weekdays.join(',')}`;
        const group = groups.get(key) ?? { days, weekdays, lengths: new Set<MonthLength>() };
        group.lengths.add(len);
        groups.set(key, group);
      }
    }
  }
  const months = rangeValues(base.month);
  const out = new Map<string, StructuredCalendar>();
  const add = (group: { days: number[]; weekdays: number[] }, inMonths: number[], years: FieldRange[]) => {
    const chosen = intersect(months, inMonths);
    if (chosen.length === 0 || (base.year.length > 0 && years.length === 0)) return;
    const calendar: StructuredCalendar = {
      ...base,
      dayOfMonth: compress(group.days),
      dayOfWeek: compress(group.weekdays),
      month: compress(chosen),
      year: years,
    };
    out.set(calendarKey(calendar), calendar);
  };
  for (const group of groups.values()) {
    const { lengths } = group;
    const bothFebruaries = lengths.has(28) && lengths.has(29);
    const allYears = [
      ...(lengths.has(31) ? MONTHS_OF_LENGTH[31] : []),
      ...(lengths.has(30) ? MONTHS_OF_LENGTH[30] : []),
      ...(bothFebruaries ? [2] : []),
    ];
    if (allYears.length > 0) add(group, allYears, [...base.year]);
    if (!bothFebruaries && (lengths.has(28) || lengths.has(29))) {
      const years = februaryYears(base.year, lengths.has(29));
      if (years.length > 0) add(group, [2], years);
    }
  }
  return [...out.values()];
}

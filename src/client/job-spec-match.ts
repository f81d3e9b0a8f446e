import type {
  CalendarSpec,
  CalendarSpecDescription,
  ScheduleSpec,
  ScheduleSpecDescription,
} from '@temporalio/client';
import { parseDuration } from '../parse/duration';
import { CRON_ALIASES } from '../schedule/cron';
import type { Trigger } from '../schedule/trigger-types';

/*
 * Compares the spec temporal-flow asked for with the spec a schedule has now, by meaning: the server
 * rewrites cron strings into calendar ranges, so strings cannot be compared. Each calendar field is
 * expanded to the set of values it matches. Used to tell a job edited outside temporal-flow (Temporal
 * UI/CLI) and to describe its real trigger then.
 */

type FieldName = 'second' | 'minute' | 'hour' | 'dayOfMonth' | 'month' | 'dayOfWeek' | 'year';

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const FIELDS: Record<FieldName, { min: number; max: number; names?: string[]; offset?: number }> = {
  second: { min: 0, max: 59 },
  minute: { min: 0, max: 59 },
  hour: { min: 0, max: 23 },
  dayOfMonth: { min: 1, max: 31 },
  month: { min: 1, max: 12, names: MONTHS, offset: 1 },
  dayOfWeek: { min: 0, max: 6, names: DAYS, offset: 0 },
  year: { min: 1970, max: 2999 },
};
const ORDER: FieldName[] = ['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year'];
/** Calendar defaults of Temporal's CalendarSpec: 0 for the time fields, every value for the others. */
const DEFAULT_ZERO: FieldName[] = ['second', 'minute', 'hour'];

function valueOf(field: FieldName, raw: string | number): number {
  if (typeof raw === 'number') return field === 'dayOfWeek' && raw === 7 ? 0 : raw;
  const rule = FIELDS[field];
  const i = rule.names?.indexOf(raw.slice(0, 3).toUpperCase()) ?? -1;
  if (i >= 0) return i + (rule.offset ?? 0);
  const n = Number(raw);
  return field === 'dayOfWeek' && n === 7 ? 0 : n;
}

/** The values of a field as a canonical string: `*` for every value, else a sorted list. */
function canonical(field: FieldName, values: Set<number> | '*'): string {
  if (values === '*') return '*';
  const { min, max } = FIELDS[field];
  if (field !== 'year' && values.size === max - min + 1) return '*';
  return [...values].sort((a, b) => a - b).join(',');
}

function addRange(out: Set<number>, field: FieldName, start: number, end: number, step: number): void {
  const upper = field === 'dayOfWeek' && end === 7 ? 6 : end;
  for (let v = start; v <= upper; v += Math.max(1, step)) out.add(field === 'dayOfWeek' && v === 7 ? 0 : v);
  if (field === 'dayOfWeek' && end === 7 && (7 - start) % Math.max(1, step) === 0) out.add(0);
}

function cronField(field: FieldName, text: string): string {
  if (field === 'year' && text === '*') return '*';
  const { min, max } = FIELDS[field];
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const [range = '*', stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (range === '*') {
      addRange(out, field, min, max, step);
      continue;
    }
    const [a = '', b] = range.split('-');
    const start = valueOf(field, a);
    const end = b !== undefined ? valueOf(field, b) : stepText !== undefined ? max : start;
    addRange(out, field, start, b === '7' && field === 'dayOfWeek' ? 7 : end, step);
  }
  return canonical(field, out);
}

function cronCalendar(cron: string): string {
  const text = Object.hasOwn(CRON_ALIASES, cron) ? CRON_ALIASES[cron]! : cron;
  const parts = text.split(' ');
  const [second, rest] = parts.length === 7 ? [parts[0]!, parts.slice(1)] : ['0', [...parts, '*']];
  const fields = [second, ...rest] as string[];
  // cron order: second minute hour day-of-month month day-of-week year
  return ORDER.map((f, i) => cronField(f, fields[i]!)).join(' ');
}

function looseField(field: FieldName, value: CalendarSpec[FieldName] | undefined): string {
  if (value === undefined) return DEFAULT_ZERO.includes(field) ? '0' : '*';
  if (value === '*') return '*';
  const out = new Set<number>();
  for (const item of Array.isArray(value) ? value : [value]) {
    if (typeof item === 'object') {
      const start = valueOf(field, item.start);
      const end = item.end !== undefined ? valueOf(field, item.end) : start;
      addRange(out, field, start, end, (item as { step?: number }).step ?? 1);
    } else out.add(valueOf(field, item));
  }
  return canonical(field, out);
}

function describedField(field: FieldName, ranges: CalendarSpecDescription[FieldName]): string {
  if (ranges.length === 0) return '*';
  const out = new Set<number>();
  for (const r of ranges) addRange(out, field, valueOf(field, r.start), valueOf(field, r.end), r.step);
  return canonical(field, out);
}

const looseCalendar = (c: CalendarSpec) => ORDER.map((f) => looseField(f, c[f])).join(' ');
const describedCalendar = (c: CalendarSpecDescription) => ORDER.map((f) => describedField(f, c[f])).join(' ');

/** A spec reduced to what it means, comparable with `===`. */
export function expectedFingerprint(spec: ScheduleSpec): string {
  const calendars = [
    ...(spec.cronExpressions ?? []).map(cronCalendar),
    ...(spec.calendars ?? []).map(looseCalendar),
  ].sort();
  const intervals = (spec.intervals ?? [])
    .map(
      (i) =>
        `${parseDuration(i.every, 'every')}/${i.offset === undefined ? 0 : parseDuration(i.offset, 'offset', { allowZero: true })}`,
    )
    .sort();
  return JSON.stringify({ tz: spec.timezone || 'UTC', calendars, intervals });
}

export function actualFingerprint(spec: ScheduleSpecDescription): string {
  const calendars = (spec.calendars ?? []).map(describedCalendar).sort();
  const intervals = (spec.intervals ?? []).map((i) => `${i.every}/${i.offset}`).sort();
  return JSON.stringify({ tz: spec.timezone || 'UTC', calendars, intervals });
}

/** Shortest exact way to write a number of milliseconds: `2h`, `90s`, `1500ms`. */
export function formatMs(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

function rangesToCron(field: FieldName, ranges: CalendarSpecDescription[FieldName]): string {
  if (describedField(field, ranges) === '*') return '*';
  return ranges
    .map((r) => {
      const [s, e] = [valueOf(field, r.start), valueOf(field, r.end)];
      const whole = s === FIELDS[field].min && e === FIELDS[field].max;
      const span = whole ? '*' : s === e ? `${s}` : `${s}-${e}`;
      return r.step > 1 ? `${span}/${r.step}` : span;
    })
    .join(',');
}

/** The trigger a schedule's actual spec means, in our terms (used for jobs edited outside temporal-flow). */
export function triggerFromSpec(spec: ScheduleSpecDescription): Trigger {
  const timezone = spec.timezone || 'UTC';
  const calendars = spec.calendars ?? [];
  if (calendars.length > 0) {
    const cron = calendars.map((c) => {
      const [second, minute, hour, dom, month, dow, year] = ORDER.map((f) => rangesToCron(f, c[f]));
      return second === '0' && year === '*'
        ? `${minute} ${hour} ${dom} ${month} ${dow}`
        : `${second} ${minute} ${hour} ${dom} ${month} ${dow} ${year}`;
    });
    return { cron: cron.length === 1 ? cron[0]! : cron, timezone };
  }
  const interval = spec.intervals?.[0];
  if (interval) {
    return {
      every: formatMs(interval.every),
      ...(interval.offset ? { offset: formatMs(interval.offset) } : {}),
      timezone,
    };
  }
  return { cron: [], timezone };
}

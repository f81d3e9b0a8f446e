import fc from 'fast-check';
import Holidays from 'date-holidays';
import { DateTime } from 'luxon';
import type { Exclusion, Trigger } from '../../src/schedule/trigger-types';

/*
 * An independent model of the Quartz day forms, exclusions and business days, written from their
 * definitions (Quartz's CronExpression docs, date-holidays' public days) with luxon, walking the local
 * days one by one: it shares no code with src/schedule. Runs are at a time of day no zone of the list
 * changes its clocks at (09:15 to 12:45), so the model places each run at that wall time, that date.
 */

/** 23 zones: DST north and south, 30- and 45-minute offsets and changes, midnight changes, a 2-hour change, none. */
export const MODEL_ZONES = [
  'UTC',
  'Europe/Paris',
  'Europe/London',
  'Europe/Dublin',
  'America/New_York',
  'America/Los_Angeles',
  'America/Santiago',
  'America/Havana',
  'America/St_Johns',
  'America/Sao_Paulo',
  'Pacific/Chatham',
  'Pacific/Auckland',
  'Australia/Lord_Howe',
  'Australia/Sydney',
  'Antarctica/Troll',
  'Africa/Cairo',
  'Africa/Casablanca',
  'Asia/Tehran',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Asia/Tokyo',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
] as const;

const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/** A generated case: the parts of a cron string and the exclusions, with what they mean. */
export interface ModelCase {
  readonly dom: string;
  readonly dow: string;
  readonly months: readonly number[] | undefined;
  readonly hour: number;
  readonly minute: number;
  readonly zone: string;
  readonly holidays: string | undefined;
  readonly dates: readonly string[];
  readonly businessDays: boolean;
}

export const modelCaseArb = (years: readonly number[]): fc.Arbitrary<ModelCase> =>
  fc.record({
    // Quartz forms mostly: "*" with a plain day-of-week is a daily or weekday trigger, slow to compare.
    dom: fc.oneof(
      { weight: 3, arbitrary: fc.constant('L') },
      { weight: 3, arbitrary: fc.integer({ min: 0, max: 27 }).map((n) => `L-${n}`) },
      { weight: 3, arbitrary: fc.constant('LW') },
      { weight: 4, arbitrary: fc.integer({ min: 1, max: 31 }).map((n) => `${n}W`) },
      { weight: 3, arbitrary: fc.constant('*') },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 31 }).map(String) },
    ),
    dow: fc.oneof(
      fc.constant('*'),
      fc.constant('*'),
      fc.constant('MON-FRI'),
      fc.integer({ min: 0, max: 6 }).map((d) => `${DAYS[d]}L`),
      fc.integer({ min: 0, max: 6 }).map((d) => `${d === 0 ? 7 : d}L`),
      fc
        .tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 5 }))
        .map(([d, n]) => `${DAYS[d]}#${n}`),
    ),
    months: fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 4 }), {
      nil: undefined,
    }),
    hour: fc.integer({ min: 9, max: 12 }),
    minute: fc.constantFrom(0, 15, 30, 45),
    zone: fc.constantFrom(...MODEL_ZONES),
    holidays: fc.option(fc.constantFrom('FR', 'US-NY', 'GB', 'CL', 'NZ', 'DE-BY', 'JP'), { nil: undefined }),
    dates: fc.array(
      fc
        .tuple(fc.constantFrom(...years), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))
        .map(([y, m, d]) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`),
      { maxLength: 3 },
    ),
    businessDays: fc.boolean(),
  });

/** The case as a trigger. */
export function triggerOf(c: ModelCase): Trigger {
  const month = c.months ? [...c.months].sort((a, b) => a - b).join(',') : '*';
  const exclude: Exclusion[] = [...c.dates, ...(c.holidays ? [{ holidays: c.holidays }] : [])];
  return {
    cron: `${c.minute} ${c.hour} ${c.dom} ${month} ${c.dow}`,
    timezone: c.zone,
    ...(exclude.length > 0 ? { exclude } : {}),
    ...(c.businessDays ? { businessDays: true } : {}),
  };
}

/** Weekday, 0 = Sunday. */
const weekday = (d: DateTime) => d.weekday % 7;
const isWeekend = (d: DateTime) => weekday(d) === 0 || weekday(d) === 6;

/** Quartz's nW: the weekday nearest the nth, not leaving the month; nothing when the month has no nth. */
function nearestWeekday(first: DateTime, n: number): number | undefined {
  const len = first.daysInMonth!;
  if (n > len) return undefined;
  const nth = first.set({ day: n });
  if (weekday(nth) === 6) return n === 1 ? 3 : n - 1;
  if (weekday(nth) === 0) return n === len ? n - 2 : n + 1;
  return n;
}

function lastWeekday(first: DateTime): number {
  let d = first.set({ day: first.daysInMonth! });
  while (isWeekend(d)) d = d.minus({ days: 1 });
  return d.day;
}

/** Whether a local day matches a day-of-month field of the dialect (`*`, a day, `L`, `L-n`, `LW`, `nW`). */
export function domMatches(dom: string, d: DateTime): boolean {
  const len = d.daysInMonth!;
  const first = d.set({ day: 1 });
  if (dom === '*') return true;
  if (dom === 'L') return d.day === len;
  if (dom === 'LW') return d.day === lastWeekday(first);
  if (dom.startsWith('L-')) return d.day === len - Number(dom.slice(2));
  if (dom.endsWith('W')) return d.day === nearestWeekday(first, Number(dom.slice(0, -1)));
  return d.day === Number(dom);
}

function dowMatches(dow: string, d: DateTime): boolean {
  if (dow === '*') return true;
  if (dow === 'MON-FRI') return !isWeekend(d);
  const name = /^([A-Z]+|\d)(L|#(\d))$/.exec(dow)!;
  const day = /\d/.test(name[1]!) ? Number(name[1]) % 7 : DAYS.indexOf(name[1]!);
  if (weekday(d) !== day) return false;
  if (name[2] === 'L') return d.day + 7 > d.daysInMonth!;
  return Math.ceil(d.day / 7) === Number(name[3]);
}

const holidayCache = new Map<string, Set<string>>();

function holidaysOf(code: string, years: readonly number[]): Set<string> {
  const key = `${code} ${years.join(',')}`;
  let set = holidayCache.get(key);
  if (!set) {
    const [country, state] = code.split('-');
    const hd = state ? new Holidays(country!, state) : new Holidays(country!);
    set = new Set();
    for (const y of years) {
      for (const h of hd.getHolidays(y)) {
        if (h.type !== 'public') continue;
        const days = Math.max(1, Math.round((h.end.getTime() - h.start.getTime()) / 86_400_000));
        const start = DateTime.fromISO(h.date.slice(0, 10), { zone: 'UTC' });
        for (let i = 0; i < days; i++) set.add(start.plus({ days: i }).toISODate()!);
      }
    }
    holidayCache.set(key, set);
  }
  return set;
}

/** The runs the case means over whole local years, as UTC ISO strings, in order. */
export function modelTimes(
  c: ModelCase,
  years: readonly number[],
  holidayYears: readonly number[],
): string[] {
  const out: string[] = [];
  const holidays = c.holidays ? holidaysOf(c.holidays, holidayYears) : new Set<string>();
  const dates = new Set(c.dates);
  let d = DateTime.fromObject({ year: years[0]!, month: 1, day: 1 }, { zone: 'UTC' });
  const end = DateTime.fromObject({ year: years[years.length - 1]! + 1, month: 1, day: 1 }, { zone: 'UTC' });
  for (; d < end; d = d.plus({ days: 1 })) {
    if (c.months && !c.months.includes(d.month)) continue;
    if (!domMatches(c.dom, d) || !dowMatches(c.dow, d)) continue;
    const iso = d.toISODate()!;
    if (c.businessDays && isWeekend(d)) continue;
    if (holidays.has(iso) || dates.has(iso)) continue;
    const local = DateTime.fromObject(
      { year: d.year, month: d.month, day: d.day, hour: c.hour, minute: c.minute },
      { zone: c.zone },
    );
    out.push(local.toUTC().toISO({ suppressMilliseconds: true })!);
  }
  return out;
}

/** The instant local midnight starts a year in a zone (UTC ISO). */
export function yearStart(year: number, zone: string): string {
  return DateTime.fromObject({ year, month: 1, day: 1 }, { zone })
    .toUTC()
    .toISO({ suppressMilliseconds: true })!;
}

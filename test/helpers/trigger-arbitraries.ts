import fc from 'fast-check';
import { DateTime } from 'luxon';
import { DAY_NAMES, FIELD_RULES, MONTH_NAMES, type CalendarFieldName } from '../../src/schedule/cron-fields';
import type { CalendarFields, CalendarRange } from '../../src/schedule/trigger-types';

/*
 * Generators of VALID triggers in Temporal's dialect (every construct docs/cron-and-timezones.md lists:
 * values, ranges, steps, value/step, lists, names and prefixes in any case, Sunday as 0 or 7, aliases,
 * 7 fields), and of time zones and windows that often straddle a clock change. What they generate is
 * filtered through the parser by the tests, so a generator slip shows as a low acceptance rate, not a
 * false failure.
 */

/** Zones with ordinary, 30-minute, 45-minute, midnight, negative and 2-hour DST, and zones without. */
export const FUZZ_ZONES = [
  'UTC',
  'Europe/Paris',
  'Europe/London',
  'Europe/Dublin',
  'America/New_York',
  'America/Santiago',
  'America/Havana',
  'America/St_Johns',
  'America/Sao_Paulo',
  'Australia/Lord_Howe',
  'Australia/Sydney',
  'Pacific/Chatham',
  'Africa/Cairo',
  'Africa/Casablanca',
  'Antarctica/Troll',
  'Asia/Kolkata',
  'Asia/Tehran',
] as const;

type Rule = (typeof FIELD_RULES)[CalendarFieldName];

const lowHigh = (min: number, max: number) =>
  fc
    .tuple(fc.integer({ min, max }), fc.integer({ min, max }))
    .map(([a, b]): [number, number] => (a <= b ? [a, b] : [b, a]));

/** A name of a month or weekday value, full or a prefix Temporal accepts, in any case. */
function nameOf(rule: Rule, value: number): fc.Arbitrary<string> {
  const full = rule.names![value - (rule.nameBase ?? 0)]!;
  return fc
    .tuple(
      fc.integer({ min: rule.minPrefix ?? 3, max: full.length }),
      fc.constantFrom('upper', 'lower', 'title'),
    )
    .map(([len, casing]) => {
      const p = full.slice(0, len);
      return casing === 'upper' ? p : casing === 'lower' ? p.toLowerCase() : p[0] + p.slice(1).toLowerCase();
    });
}

/** One comma-free item of a field: `*`, `*\/s`, `a`, `a-b`, `a-b/s`, `a/s`, with numbers or names. */
function cronItem(rule: Rule, useNames: boolean, maxStep: number): fc.Arbitrary<string> {
  // Day-of-week names stop at SATURDAY (value 6); 7 is only a number.
  const max = useNames && rule.field === 'dayOfWeek' ? 6 : rule.max;
  const value = (v: number) => (useNames ? nameOf(rule, v) : fc.constant(String(v)));
  const step = fc.integer({ min: 1, max: maxStep });
  return fc.oneof(
    fc.constant('*'),
    step.map((s) => `*/${s}`),
    fc.integer({ min: rule.min, max }).chain(value),
    lowHigh(rule.min, max).chain(([a, b]) => fc.tuple(value(a), value(b)).map(([x, y]) => `${x}-${y}`)),
    fc
      .tuple(lowHigh(rule.min, max), step)
      .chain(([[a, b], s]) => fc.tuple(value(a), value(b)).map(([x, y]) => `${x}-${y}/${s}`)),
    fc.tuple(fc.integer({ min: rule.min, max }), step).chain(([a, s]) => value(a).map((x) => `${x}/${s}`)),
  );
}

/** A whole field: one item or a short list, names for month and day-of-week some of the time. */
function cronField(name: CalendarFieldName): fc.Arbitrary<string> {
  const rule = FIELD_RULES[name];
  const maxStep = rule.max - rule.min + 3; // past the field's size too: matches the first value only
  const items = (useNames: boolean) =>
    fc.array(cronItem(rule, useNames, maxStep), { minLength: 1, maxLength: 3 }).map((a) => a.join(','));
  if (name === 'year') {
    return fc.oneof(
      { weight: 3, arbitrary: fc.constant('*') },
      fc
        .array(fc.integer({ min: 2026, max: 2030 }).map(String), { minLength: 1, maxLength: 3 })
        .map((a) => a.join(',')),
      lowHigh(2026, 2100).map(([a, b]) => `${a}-${b}`),
    );
  }
  if (!rule.names)
    return fc.oneof({ weight: 2, arbitrary: fc.constant('*') }, { weight: 3, arbitrary: items(false) });
  return fc.oneof({ weight: 3, arbitrary: fc.constant('*') }, items(false), items(true));
}

/** A cron string the parser should accept: 5 fields, 7 fields, or an alias; odd spacing sometimes. */
export const validCron: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(...(['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'] as const).map(cronField))
      .map((f) => f.join(' ')),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        ...(['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year'] as const).map(cronField),
      )
      .map((f) => f.join(' ')),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '@yearly',
      '@annually',
      '@monthly',
      '@weekly',
      '@daily',
      '@midnight',
      '@hourly',
    ),
  },
);

/** A calendar value: a number, an expression, a range object (values or names), or a list of them. */
function calendarValue(name: CalendarFieldName): fc.Arbitrary<CalendarFields[CalendarFieldName]> {
  const rule = FIELD_RULES[name];
  const lo = name === 'year' ? 2026 : rule.min;
  const hi = name === 'year' ? 2032 : name === 'dayOfWeek' ? 6 : rule.max;
  const fullName = (v: number): number | string =>
    name === 'month' ? MONTH_NAMES[v - 1]! : name === 'dayOfWeek' ? DAY_NAMES[v]! : v;
  const one = fc.integer({ min: lo, max: hi });
  const range: fc.Arbitrary<CalendarRange> = fc
    .tuple(lowHigh(lo, hi), fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }), fc.boolean())
    .map(([[a, b], step, named]) => ({
      start: named ? fullName(a) : a,
      end: named ? fullName(b) : b,
      ...(step !== undefined ? { step } : {}),
    }));
  const item = fc.oneof(
    one,
    one.map(fullName),
    range,
    name === 'year' ? one.map(String) : cronItem(rule, false, 20),
  );
  return fc.oneof(item, fc.array(item, { minLength: 1, maxLength: 3 }));
}

/** A calendar naming 1-4 fields. */
export const validCalendar: fc.Arbitrary<CalendarFields> = fc
  .subarray(['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year'] as CalendarFieldName[], {
    minLength: 1,
    maxLength: 4,
  })
  .chain((names) => fc.tuple(...names.map((n) => calendarValue(n).map((v) => [n, v] as const))))
  .map((entries) => Object.fromEntries(entries) as CalendarFields);

/** Days on which a zone's UTC offset changes, 2026-2028 (scanned once, at noon UTC each day). */
function offsetChanges(zone: string): string[] {
  const out: string[] = [];
  let day = DateTime.fromISO('2026-01-01T12:00:00Z', { zone });
  let prev = day.offset;
  while (day.year < 2029) {
    const next = day.plus({ days: 1 });
    if (next.offset !== prev) out.push(day.toUTC().toISODate()!);
    prev = next.offset;
    day = next;
  }
  return out;
}

const CHANGES: Record<string, string[]> = Object.fromEntries(FUZZ_ZONES.map((z) => [z, offsetChanges(z)]));

/** A window `(from, to]` of 1-4 days, around a clock change of the zone two times out of three. */
export function windowIn(zone: string): fc.Arbitrary<{ from: string; to: string }> {
  const changes = CHANGES[zone] ?? [];
  const around = changes.length
    ? fc
        .tuple(fc.constantFrom(...changes), fc.integer({ min: -48 * 3600, max: 24 * 3600 }))
        .map(([day, shift]) => Date.parse(`${day}T00:00:00Z`) + shift * 1000)
    : fc.integer({ min: Date.parse('2026-06-01T00:00:00Z'), max: Date.parse('2028-12-01T00:00:00Z') });
  const anywhere = fc.integer({
    min: Date.parse('2026-06-01T00:00:00Z'),
    max: Date.parse('2028-12-01T00:00:00Z'),
  });
  return fc
    .tuple(fc.oneof({ weight: 2, arbitrary: around }, anywhere), fc.integer({ min: 1, max: 4 * 24 }))
    .map(([fromMs, hours]) => {
      const from = Math.floor(fromMs / 1000) * 1000;
      const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
      return { from: iso(from), to: iso(from + hours * 3600_000) };
    });
}

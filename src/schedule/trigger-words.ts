import cronstrue from 'cronstrue';
import { DateTime } from 'luxon';
import { compileTrigger } from './compile-trigger';
import { parseCron } from './cron';
import { DAY_NAMES, FIELD_RULES, MONTH_NAMES, SEVEN_FIELDS, type StructuredCalendar } from './cron-fields';
import { rangeValues } from './field-parse';
import { calendarToCron, matchesAll } from './spec-calendar';
import type { Trigger } from './trigger-types';

/*
 * A trigger said in words, for people (`tflow jobs get`, `tflow jobs list`). Cron strings and calendars
 * are described from the one parsed model (StructuredCalendar): the model is printed back as a canonical
 * cron string (numbers only, Sunday 0, aliases expanded, no name prefixes) and that string is what
 * cronstrue reads, so cronstrue never meets the parts of Temporal's dialect it could read differently.
 * Temporal requires day-of-month AND day-of-week to match; cronstrue words both restrictions with "and",
 * which says the same. When cronstrue cannot describe a calendar, the model is worded here instead.
 */

const CRONSTRUE_OPTIONS = { use24HourTimeFormat: true, throwExceptionOnParseError: true } as const;

const UNITS: readonly [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['min', 60_000],
  ['s', 1000],
];

/**
 * A duration in words, with its two largest units: `2 h 13 min`, `45 s`, `3 d 4 h`, `250 ms`.
 * Negative durations are worded by their size.
 */
export function durationInWords(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(abs)} ms`;
  const parts: string[] = [];
  let rest = abs;
  for (const [unit, size] of UNITS) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || parts.length > 0) parts.push(`${n} ${unit}`);
    if (parts.length === 2) break;
  }
  return parts.filter((p) => !p.startsWith('0 ')).join(' ');
}

function valuesInWords(values: number[], word: (v: number) => string): string {
  const words = values.map(word);
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/**
 * A calendar in words without cronstrue: each restricted field with its values, e.g.
 * `at 09:00:00, on Monday and Friday, in January`. The fallback when cronstrue cannot say it.
 */
export function calendarInWords(calendar: StructuredCalendar): string {
  const all = (name: (typeof SEVEN_FIELDS)[number]) => matchesAll(name, calendar[name]);
  const vals = (name: (typeof SEVEN_FIELDS)[number]) => rangeValues(calendar[name]);
  const parts: string[] = [];
  const [s, m, h] = [vals('second'), vals('minute'), vals('hour')];
  if (s.length === 1 && m.length === 1 && h.length === 1) {
    parts.push(`at ${[h[0], m[0], s[0]].map((v) => String(v).padStart(2, '0')).join(':')}`);
  } else {
    for (const name of ['hour', 'minute', 'second'] as const) {
      if (!all(name)) parts.push(`${FIELD_RULES[name].label} ${valuesInWords(vals(name), String)}`);
      else parts.push(`every ${FIELD_RULES[name].label}`);
    }
  }
  const title = (n: string) => n[0] + n.slice(1).toLowerCase();
  if (!all('dayOfMonth')) parts.push(`on day ${valuesInWords(vals('dayOfMonth'), String)} of the month`);
  if (!all('dayOfWeek')) parts.push(`on ${valuesInWords(vals('dayOfWeek'), (d) => title(DAY_NAMES[d]!))}`);
  if (!all('month')) parts.push(`in ${valuesInWords(vals('month'), (v) => title(MONTH_NAMES[v - 1]!))}`);
  if (!all('year')) parts.push(`in ${valuesInWords(vals('year'), String)}`);
  const sentence = parts.join(', ');
  return sentence[0]!.toUpperCase() + sentence.slice(1);
}

/**
 * The calendar with each range that matches one value written as that value: `*\/12` in the month field
 * matches January only, and cronstrue would say "every 12 months" where "only in January" is meant.
 */
function singleValues(calendar: StructuredCalendar): StructuredCalendar {
  return Object.fromEntries(
    SEVEN_FIELDS.map((name) => [
      name,
      calendar[name].map((r) => {
        const values = rangeValues([r]);
        return values.length === 1 ? { start: values[0]!, end: values[0]!, step: 1 } : r;
      }),
    ]),
  ) as unknown as StructuredCalendar;
}

/**
 * One calendar of the model in words: cronstrue's sentence for its canonical cron string, else
 * {@link calendarInWords}.
 */
export function cronInWords(calendar: StructuredCalendar): string {
  try {
    const sentence = cronstrue.toString(calendarToCron(singleValues(calendar)), CRONSTRUE_OPTIONS);
    // A sentence with a hole in it is not one we can show.
    if (!/undefined|NaN|null/.test(sentence)) return sentence;
  } catch {
    // cronstrue cannot read this form: worded from the model below.
  }
  return calendarInWords(calendar);
}

/**
 * A trigger in words, with its time zone:
 * `At 02:00 (Europe/Paris)`, `Every 15 minutes, or at 12:00, Monday through Friday (UTC)`,
 * `Every 2 h, offset 1 h (counted in UTC)`, `Once, at 2027-01-01 09:30 (Europe/Paris)`.
 *
 * @param defaultTimezone the zone of a trigger that names none (the scheduler's or the job's).
 * @throws InvalidTriggerError for an invalid trigger (as {@link compileTrigger}).
 */
export function triggerInWords(trigger: Trigger, defaultTimezone = 'UTC'): string {
  const compiled = compileTrigger(trigger, defaultTimezone);
  const zone = compiled.timezone;
  const joined = (sentences: string[]): string =>
    `${sentences.map((w, i) => (i === 0 ? w : w[0]!.toLowerCase() + w.slice(1))).join(', or ')} (${zone})`;
  switch (compiled.kind) {
    case 'cron': {
      // A Quartz day form (L, W, #) compiles to many calendars: cronstrue says its source in one sentence.
      const crons = (trigger as { cron: string | readonly string[] }).cron;
      return joined(
        (typeof crons === 'string' ? [crons] : [...crons]).map((c) => {
          const parsed = parseCron(c);
          return parsed.quartz
            ? cronstrue.toString(parsed.source, CRONSTRUE_OPTIONS)
            : parsed.calendars.map((cal) => cronInWords(cal)).join(', or ');
        }),
      );
    }
    case 'calendar':
      return joined(compiled.fire.calendars.map((c) => cronInWords(c)));
    case 'interval': {
      const { everySec, offsetSec } = compiled.fire.intervals[0]!;
      const offset = offsetSec > 0 ? `, offset ${durationInWords(offsetSec * 1000)}` : '';
      return `Every ${durationInWords(everySec * 1000)}${offset} (counted in UTC)`;
    }
    case 'once': {
      const at = DateTime.fromJSDate(compiled.runAt!, { zone });
      return `Once, at ${at.toFormat('yyyy-MM-dd HH:mm:ss')} (${zone})`;
    }
  }
}

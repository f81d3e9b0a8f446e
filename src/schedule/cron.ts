import {
  CRON_ALIASES,
  FIELD_DEFAULTS,
  FIELD_RULES,
  FIVE_FIELDS,
  SEVEN_FIELDS,
  type CalendarFieldName,
  type StructuredCalendar,
} from './cron-fields';
import { InvalidTriggerError } from './errors';
import { parseField } from './field-parse';
import { neverMatches } from './calendar';
import { dayCalendars, parseDayField } from './quartz-days';

/*
 * Cron strings in Temporal's dialect (the server's parseCronString): 5 fields "minute hour day-of-month month
 * day-of-week", or 7 "second minute hour day-of-month month day-of-week year"; `@yearly` ... `@hourly`;
 * names (JAN, MON); Sunday 0 or 7; a time matches when day-of-month AND day-of-week both match (classic
 * cron uses OR when both are restricted). Quartz's day forms (L, L-n, LW, nW in day-of-month; FRIL, MON#2
 * in day-of-week) are compiled into plain calendars meaning exactly those days (quartz-days.ts); such a
 * cron is sent to Temporal as those calendars, not as a string. Anything Temporal would reject or read
 * differently from what the user meant fails here, with what to write instead.
 */

export { CRON_ALIASES } from './cron-fields';

/**
 * A cron string checked and parsed: `source` is the string normalised, `calendars` what it means (one
 * calendar, or several for a Quartz day form). With `quartz` false `source` is sent to Temporal as it is;
 * with `quartz` true the calendars are sent instead (Temporal's cron reader has no L, W or #).
 */
export interface ParsedCron {
  readonly source: string;
  readonly calendars: readonly StructuredCalendar[];
  readonly quartz: boolean;
}

function failFor(cron: string) {
  return (message: string): never => {
    throw new InvalidTriggerError('cron', `invalid cron "${cron}": ${message}`);
  };
}

function sixFieldMessage(fields: string[]): string {
  const [a, b, c, d, e, f] = fields;
  return (
    'it has 6 fields, which is ambiguous: Temporal reads it as "minute hour day-of-month month day-of-week year" ' +
    `("${a} ${b} ${c} ${d} ${e}" in year ${f}), while Quartz and Spring read "second minute hour day-of-month month day-of-week". ` +
    `Write 5 fields ("${b} ${c} ${d} ${e} ${f}") or 7 with the year last ("${a} ${b} ${c} ${d} ${e} ${f} *")`
  );
}

/** Rejects whole-string constructs Temporal reads differently (comments, TZ prefixes, @every). */
function rejectWholeString(cron: string, fail: (m: string) => never): void {
  if (/(^|\s)#/.test(cron)) {
    fail(
      'a comment ("#" starting a field) is not supported: Temporal reads everything after it as a comment; ' +
        'remove it (the nth weekday is written in the day-of-week field, e.g. "MON#2")',
    );
  }
  if (/^(CRON_)?TZ=/i.test(cron)) {
    fail(
      'a "TZ=" / "CRON_TZ=" prefix is not supported here: give the time zone in the trigger\'s "timezone" option',
    );
  }
  if (cron.startsWith('@every')) {
    fail(
      'use an interval trigger ({ every: "2h", offset: "1h" }) rather than "@every": it is validated and previewed like the others',
    );
  }
  if (cron.startsWith('@') && !Object.hasOwn(CRON_ALIASES, cron)) {
    fail(`unknown alias; allowed: ${Object.keys(CRON_ALIASES).join(', ')}`);
  }
}

/**
 * Checks and parses a cron string.
 *
 * @throws InvalidTriggerError (`field: 'cron'`) saying which field is wrong and what to write instead.
 */
export function parseCron(input: string): ParsedCron {
  if (typeof input !== 'string') {
    throw new InvalidTriggerError('cron', `cron must be a string, got ${typeof input}`);
  }
  const source = input.trim().replace(/\s+/g, ' ');
  const fail: (message: string) => never = failFor(source);
  if (source === '') {
    fail('empty: write 5 fields "minute hour day-of-month month day-of-week", e.g. "0 2 * * *"');
  }
  rejectWholeString(source, fail);
  // Own keys only: "valueOf" or "constructor" must not find Object.prototype's.
  const expanded = Object.hasOwn(CRON_ALIASES, source) ? CRON_ALIASES[source]! : source;
  const fields = expanded.split(' ');
  if (fields.length === 6) fail(sixFieldMessage(fields));
  const names = fields.length === 5 ? FIVE_FIELDS : fields.length === 7 ? SEVEN_FIELDS : undefined;
  if (!names) {
    fail(
      `it has ${fields.length} fields: write 5 ("minute hour day-of-month month day-of-week") or 7 (second first, year last)`,
    );
  }
  const raw: Record<CalendarFieldName, string> = { ...FIELD_DEFAULTS };
  names.forEach((name, i) => (raw[name] = fields[i]!));
  const subject = (name: CalendarFieldName) => `${FIELD_RULES[name].label} field`;
  const calendar = Object.fromEntries(
    (Object.keys(raw) as CalendarFieldName[]).map((name) => {
      const days = name === 'dayOfMonth' || name === 'dayOfWeek';
      return [name, days ? [] : parseField(raw[name], FIELD_RULES[name], subject(name), fail)];
    }),
  ) as unknown as StructuredCalendar;
  const dayOfMonth = parseDayField('dayOfMonth', raw.dayOfMonth, subject('dayOfMonth'), fail);
  const dayOfWeek = parseDayField('dayOfWeek', raw.dayOfWeek, subject('dayOfWeek'), fail);
  const calendars = dayCalendars(calendar, dayOfMonth, dayOfWeek);
  const never =
    calendars.length === 0
      ? `day-of-month "${raw.dayOfMonth}" with month "${raw.month}", day-of-week "${raw.dayOfWeek}" and year "${raw.year}" is never a day that exists, so Temporal would never run the job`
      : neverMatches(calendars[0]!);
  if (never && calendars.length <= 1) fail(`no such day: ${never}`);
  return { source, calendars, quartz: dayOfMonth.quartz || dayOfWeek.quartz };
}

/**
 * Checks a cron string and returns it normalised (single spaces, aliases kept), as sent to Temporal.
 *
 * @throws InvalidTriggerError saying which field is wrong, and what to write instead.
 */
export function validateCron(input: string): string {
  return parseCron(input).source;
}

import { InvalidTriggerError } from './errors';

/*
 * Validation of cron strings in Temporal's dialect, so that a string Temporal would reject, or read
 * differently from what the user meant, fails here with a message saying what to write instead.
 * Temporal: 5 fields (minute hour day-of-month month day-of-week), or 7 (second first, year last);
 * `@yearly` ... `@hourly`; names (JAN, MON); Sunday is 0 or 7; day-of-month AND day-of-week.
 */

interface FieldRule {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;

const SECOND: FieldRule = { name: 'second', min: 0, max: 59 };
const MINUTE: FieldRule = { name: 'minute', min: 0, max: 59 };
const HOUR: FieldRule = { name: 'hour', min: 0, max: 23 };
const DAY_OF_MONTH: FieldRule = { name: 'day-of-month', min: 1, max: 31 };
const MONTH: FieldRule = { name: 'month', min: 1, max: 12, names: MONTHS };
const DAY_OF_WEEK: FieldRule = { name: 'day-of-week', min: 0, max: 7, names: DAYS };
const YEAR: FieldRule = { name: 'year', min: 1970, max: 2999 };

const FIVE = [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK];
const SEVEN = [SECOND, MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK, YEAR];

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

function fail(cron: string, message: string): never {
  throw new InvalidTriggerError('cron', `invalid cron "${cron}": ${message}`);
}

function parseValue(cron: string, rule: FieldRule, raw: string): number {
  const upper = raw.toUpperCase();
  if (rule.names) {
    const i = rule.names.indexOf(upper);
    if (i >= 0) return rule === MONTH ? i + 1 : i;
  }
  if (!/^\d+$/.test(raw)) {
    const allowed = rule.names ? ` or a name (${rule.names.join(', ')})` : '';
    fail(cron, `${rule.name} field value "${raw}" is not a number${allowed}`);
  }
  const n = Number(raw);
  if (n < rule.min || n > rule.max)
    fail(cron, `${rule.name} field value "${raw}" is out of range ${rule.min}-${rule.max}`);
  return n;
}

function checkField(cron: string, rule: FieldRule, field: string): void {
  if (field.includes('?')) {
    fail(cron, `"?" in the ${rule.name} field is Quartz syntax; Temporal has no "?": write "*"`);
  }
  if (field.includes('#')) {
    fail(
      cron,
      `"#" (nth weekday, "${field}") is Quartz syntax that Temporal does not support: use a calendar trigger or a day-of-month range with the weekday, e.g. "0 9 1-7 * MON" for the first Monday`,
    );
  }
  for (const part of field.split(',')) {
    if (part === '') fail(cron, `empty value in the ${rule.name} field "${field}"`);
    const [range, step, ...rest] = part.split('/');
    if (rest.length > 0 || range === undefined)
      fail(cron, `too many "/" in the ${rule.name} field "${field}"`);
    if (step !== undefined && (!/^\d+$/.test(step) || Number(step) === 0)) {
      fail(cron, `step "/${step}" in the ${rule.name} field must be a whole number of 1 or more`);
    }
    if (range === '*') continue;
    if (/^L$|^\d*L$|^LW$|^\d+W$/i.test(range) && rule === DAY_OF_MONTH) {
      fail(
        cron,
        `"${range}" (last/nearest weekday) is Quartz syntax that Temporal does not support: use a calendar trigger`,
      );
    }
    if (/^\d+L$/i.test(range) && rule === DAY_OF_WEEK) {
      fail(cron, `"${range}" (last weekday of the month) is Quartz syntax that Temporal does not support`);
    }
    const bounds = range.split('-');
    if (bounds.length > 2) fail(cron, `bad range "${range}" in the ${rule.name} field`);
    const lo = parseValue(cron, rule, bounds[0]!);
    if (bounds.length === 2) {
      const hi = parseValue(cron, rule, bounds[1]!);
      if (hi < lo) fail(cron, `range "${range}" in the ${rule.name} field goes backwards`);
    }
  }
}

/**
 * Checks a cron string and returns it normalised (single spaces, aliases kept).
 *
 * @throws InvalidTriggerError saying which field is wrong, and what to write instead.
 */
export function validateCron(input: string): string {
  if (typeof input !== 'string')
    throw new InvalidTriggerError('cron', `cron must be a string, got ${typeof input}`);
  const cron = input.trim().replace(/\s+/g, ' ');
  if (cron === '')
    fail(input, 'empty: write 5 fields "minute hour day-of-month month day-of-week", e.g. "0 2 * * *"');
  if (cron.startsWith('@')) {
    if (cron in CRON_ALIASES) return cron;
    if (cron.startsWith('@every')) {
      fail(cron, 'use scheduleInterval({ every }) for intervals rather than "@every"');
    }
    fail(cron, `unknown alias; allowed: ${Object.keys(CRON_ALIASES).join(', ')}`);
  }
  const fields = cron.split(' ');
  if (fields.length === 6) {
    const [a, b, c, d, e, f] = fields;
    fail(
      cron,
      'it has 6 fields, which is ambiguous: Temporal reads it as "minute hour day-of-month month day-of-week year" ' +
        `("${a} ${b} ${c} ${d} ${e}" in year ${f}), while Quartz and Spring read "second minute hour day-of-month month day-of-week". ` +
        `Write 5 fields ("${b} ${c} ${d} ${e} ${f}") or 7 with the year last ("${a} ${b} ${c} ${d} ${e} ${f} *")`,
    );
  }
  const rules = fields.length === 5 ? FIVE : fields.length === 7 ? SEVEN : undefined;
  if (!rules) {
    fail(
      cron,
      `it has ${fields.length} fields: write 5 ("minute hour day-of-month month day-of-week") or 7 (second first, year last)`,
    );
  }
  rules.forEach((rule, i) => checkField(cron, rule, fields[i]!));
  return cron;
}

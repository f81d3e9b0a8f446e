import type { FieldRange, FieldRule } from './cron-fields';

/*
 * Parses one calendar field ("*", "5", "1-5", "*\/15", "10/5", "MON-FRI", "1,15,30") into ranges with the
 * meaning the Temporal server gives them (checked against it by test/integration/preview-matching-times),
 * and rejects the constructs it would reject or misread (Quartz "?", a day-of-week "1-7" that silently
 * drops Sundays) with a message saying what to write instead. Quartz's L, W and # day forms are read by
 * quartz-days.ts before the plain items of a day field reach this parser.
 */

/** Reports a parse error; `subject` is how the message names the field, e.g. `minute field`. */
export type FailFn = (message: string) => never;

const INTEGER = /^\d+$/;

/** Largest step Temporal stores exactly (an int32). */
const MAX_STEP = 2 ** 31 - 1;

/** Reads one value: a whole number or (month, day-of-week) a name or a prefix Temporal accepts. */
function parseValue(raw: string, rule: FieldRule, subject: string, fail: FailFn): number {
  if (rule.names && /^[a-z]+$/i.test(raw)) {
    const lower = raw.toLowerCase();
    if (raw.length >= (rule.minPrefix ?? 1)) {
      const i = rule.names.findIndex((name) => name.toLowerCase().startsWith(lower));
      if (i >= 0) return i + (rule.nameBase ?? 0);
    }
    fail(
      `${subject} name "${raw}" is not a ${rule.label} name: write ${rule.names
        .map((n) => n.slice(0, 3))
        .join(', ')} (or the full name)`,
    );
  }
  if (!INTEGER.test(raw)) {
    const names = rule.names ? ` or a name such as ${rule.names[1]!.slice(0, 3)}` : '';
    fail(`${subject} value "${raw}" is not a number${names}`);
  }
  const n = Number(raw);
  if (n < rule.min || n > rule.max) {
    fail(`${subject} value "${raw}" is out of range ${rule.min}-${rule.max}`);
  }
  return n;
}

/**
 * Rejects Quartz syntax the day parser (quartz-days.ts) did not take: `?`, and L/W/# forms in a field
 * that has none (or malformed there), with where they belong.
 */
function rejectQuartz(part: string, subject: string, fail: FailFn): void {
  if (part.includes('?')) {
    fail(`"?" in the ${subject} is Quartz syntax; Temporal has no "?": write "*"`);
  }
  if (part.includes('#')) {
    fail(
      `"#" (nth weekday, "${part}") in the ${subject}: the nth weekday is written in the day-of-week field, ` +
        'as one weekday, "#" and 1-5, e.g. "0 9 * * MON#2" (the second Monday)',
    );
  }
  if (/^(\d*L(-\d*)?|LW|\d*W)$/i.test(part)) {
    fail(
      `"${part}" in the ${subject} is not a form Quartz or Temporal has here: "last" and "nearest weekday" are ` +
        'written in day-of-month as L, L-3 (3 days before the last), LW (last weekday), 15W (weekday nearest the ' +
        '15th), and in day-of-week as FRIL or 5L (last Friday)',
    );
  }
}

/**
 * Sunday may be written 7, but Temporal keeps weekdays as 0-6: a day-of-week range whose values reach 7
 * matches Sunday as 0 instead, and never goes past 6.
 */
export function foldSunday(r: FieldRange, rule: FieldRule): FieldRange[] {
  if (rule.field !== 'dayOfWeek' || r.end !== 7) return [r];
  const weekdays = r.start === 7 ? [] : [{ ...r, end: 6 }];
  const reachesSeven = (7 - r.start) % r.step === 0;
  return reachesSeven ? [{ start: 0, end: 0, step: 1 }, ...weekdays] : weekdays;
}

/**
 * Parses a field expression into Temporal's ranges.
 *
 * @param subject how messages name the field, e.g. `minute field` or `calendar.hour`.
 */
export function parseField(expr: string, rule: FieldRule, subject: string, fail: FailFn): FieldRange[] {
  const text = expr.trim();
  if (text === '') fail(`${subject} is empty: write "*" for every ${rule.label}`);
  if (text === '*' && rule.field === 'year') return [];
  const ranges: FieldRange[] = [];
  let sawName = false;
  let sawNumber = false;
  for (const part of text.split(',')) {
    if (part === '') fail(`${subject} "${text}" has an empty item between commas`);
    rejectQuartz(part, subject, fail);
    const pieces = part.split('/');
    if (pieces.length > 2) fail(`${subject} item "${part}" has more than one "/"`);
    const [range, stepText] = pieces as [string, string | undefined];
    let step = 1;
    if (stepText !== undefined) {
      if (!INTEGER.test(stepText) || Number(stepText) < 1) {
        fail(`${subject} step "/${stepText}" must be a whole number of 1 or more`);
      }
      step = Number(stepText);
      // Temporal keeps steps as 32-bit integers: /4294967297 would wrap to /1 and fire every value.
      if (step > MAX_STEP) {
        fail(
          `${subject} step "/${stepText}" is too large: Temporal keeps steps as 32-bit integers (at most ${MAX_STEP}); ` +
            `a step of ${rule.max - rule.min + 1} or more matches only the first value, so write that value`,
        );
      }
    }
    let start = rule.min;
    let end = rule.max;
    if (range !== '*') {
      const bounds = range.split('-');
      if (bounds.length > 2 || bounds.some((b) => b === '')) {
        fail(
          `${subject} item "${part}" is not a value or a range "low-high" (negative numbers are not allowed)`,
        );
      }
      for (const b of bounds) {
        if (/^[a-z]+$/i.test(b)) sawName = true;
        else sawNumber = true;
      }
      start = parseValue(bounds[0]!, rule, subject, fail);
      if (bounds.length === 2) {
        end = parseValue(bounds[1]!, rule, subject, fail);
        if (end < start) {
          const wrap =
            rule.field === 'dayOfWeek'
              ? ' (for a range through Sunday write e.g. "FRI-SAT,SUN" or "5-7")'
              : '';
          fail(`${subject} range "${range}" goes backwards: write low-high${wrap}`);
        }
      } else if (stepText === undefined) {
        end = start;
      }
    }
    if (rule.field === 'dayOfWeek' && start === 1 && end === 7 && step === 1) {
      // Observed on the server: "1-7" matches Monday to Saturday only. Refuse it rather than drop Sundays.
      fail(
        `${subject} range "${range}" would never run on Sunday (Temporal reads it as Monday-Saturday): ` +
          'write "*" or "0-6" for every day, or "1-6" for Monday to Saturday',
      );
    }
    ranges.push(...foldSunday({ start, end, step }, rule));
  }
  if (rule.field === 'dayOfWeek' && sawName && sawNumber) {
    fail(
      `${subject} "${text}" mixes day names and numbers: numbers mean different days in cron (0 or 7 = Sunday, ` +
        '1 = Monday) and in APScheduler (0 = Monday); write names only, e.g. "MON-FRI"',
    );
  }
  return ranges;
}

/** Expands ranges into the set of values they match (for the matcher and for tests). */
export function rangeValues(ranges: readonly FieldRange[]): number[] {
  const out = new Set<number>();
  for (const r of ranges) {
    for (let v = r.start; v <= Math.max(r.start, r.end); v += Math.max(1, r.step)) out.add(v);
  }
  return [...out].sort((a, b) => a - b);
}

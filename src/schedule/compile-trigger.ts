import type { ScheduleSpec } from '@temporalio/client';
import { IANAZone } from 'luxon';
import { MAX_DURATION_MS, parseDuration } from '../parse/duration';
import { parseInstant } from '../parse/instant';
import { compileCalendars, toCalendarSpec } from './calendar';
import { MAX_YEAR, MIN_YEAR, MONTH_NAMES, type StructuredCalendar } from './cron-fields';
import { parseCron } from './cron';
import { InvalidTriggerError } from './errors';
import { compileExclusions, type CompiledExclusions } from './exclusions';
import { horizonYears } from './holidays';
import { misreadCorrections, misreadDefault } from './weekday-misread';
import type { FireSpec } from './fire-times';
import { isNativePolicy, validateDstPolicy, type DstPolicy } from './dst-policy';
import { describeValue } from '../errors';
import type {
  CalendarTrigger,
  CronTrigger,
  IntervalTrigger,
  OneOffTrigger,
  Trigger,
  TriggerKind,
} from './trigger-types';

/** A trigger turned into Temporal's terms. */
export interface CompiledTrigger {
  kind: TriggerKind;
  spec: ScheduleSpec;
  timezone: string;
  /** Set for one-off jobs: the schedule takes one action, then is done. */
  remainingActions?: number;
  /** Set for one-off jobs: the instant given (the spec matches it to the second). */
  runAt?: Date;
  /** What the spec means, for computing fire times locally ({@link previewTrigger}). */
  fire: FireSpec;
  /** The trigger's `exclude` and `businessDays`, as sent in `spec.skip` (absent when it has none). */
  exclusions?: CompiledExclusions;
  /** The DST policy of a cron or calendar trigger (its own, else the default given), when it changes anything. */
  dst?: DstPolicy;
}

/** A cron or calendar trigger's DST policy: its own `dst`, else the default; others take none. */
function dstOf(
  trigger: Trigger,
  kind: TriggerKind,
  defaultDst: DstPolicy | undefined,
): DstPolicy | undefined {
  const own = (trigger as { dst?: unknown }).dst;
  if (own !== undefined && (kind === 'interval' || kind === 'once')) {
    throw new InvalidTriggerError(
      'dst',
      `dst applies to cron and calendar triggers (an ${kind === 'once' ? 'one-off runs at an instant' : 'interval counts in UTC'}, DST does not change it); leave it out`,
    );
  }
  if (kind === 'interval' || kind === 'once') return undefined;
  const policy = own === undefined ? defaultDst : validateDstPolicy(own);
  return isNativePolicy(policy) ? undefined : policy;
}

/**
 * Zone names found valid: the zone database does not change while the process runs, and each check builds
 * an Intl.DateTimeFormat (twice), the larger part of a job write's own CPU time before this cache.
 */
const validZones = new Set<string>();

/**
 * Checks an IANA time zone name.
 *
 * @throws InvalidTriggerError for a name luxon does not know (e.g. "CET+1", "Europe/Pariss").
 */
export function validateTimezone(tz: string, field = 'timezone'): string {
  if (validZones.has(tz)) return tz;
  if (typeof tz !== 'string' || !IANAZone.isValidZone(tz)) {
    throw new InvalidTriggerError(
      field,
      `${field} ${describeValue(tz)} is not an IANA time zone name: write e.g. "UTC", "Europe/Paris", "America/New_York"`,
    );
  }
  // Intl (and so luxon) ignores case, the Temporal server does not: "europe/paris" is unknown there.
  const canonical = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  if (canonical !== tz && canonical.toLowerCase() === tz.toLowerCase()) {
    throw new InvalidTriggerError(
      field,
      `${field} ${describeValue(tz)} is spelt with the wrong case: the Temporal server only knows ${JSON.stringify(canonical)}`,
    );
  }
  validZones.add(tz);
  return tz;
}

const UNIT_MS = {
  seconds: 1_000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
  weeks: 604_800_000,
} as const;

/** Milliseconds between runs of an interval trigger (`every`, or APScheduler-style seconds/minutes/...). */
export function intervalMs(trigger: IntervalTrigger): number {
  const units = (Object.keys(UNIT_MS) as (keyof typeof UNIT_MS)[]).filter((u) => trigger[u] !== undefined);
  if (trigger.every !== undefined && units.length > 0) {
    throw new InvalidTriggerError('every', `give either "every" or ${units.join('/')}, not both`);
  }
  if (trigger.every !== undefined) {
    const every = parseDuration(trigger.every, 'every', { error: InvalidTriggerError });
    if (every < 1_000) {
      throw new InvalidTriggerError('every', `an interval must be at least 1 second, got ${every} ms`);
    }
    return every;
  }
  if (units.length === 0) {
    throw new InvalidTriggerError(
      'every',
      'an interval needs "every" (e.g. "30s") or seconds/minutes/hours/days/weeks',
    );
  }
  let total = 0;
  for (const unit of units) {
    const n = trigger[unit]!;
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) {
      throw new InvalidTriggerError(unit, `${unit} must be a number of 0 or more, got ${describeValue(n)}`);
    }
    total += n * UNIT_MS[unit];
  }
  if (total < 1_000)
    throw new InvalidTriggerError('every', `an interval must be at least 1 second, got ${total} ms`);
  if (total > MAX_DURATION_MS) {
    throw new InvalidTriggerError('every', `an interval must be at most 100 years, got ${total} ms`);
  }
  return Math.round(total);
}

/** Temporal counts intervals and offsets in whole seconds and silently drops the rest: refuse it instead. */
function wholeSeconds(ms: number, field: string): number {
  if (ms % 1000 !== 0) {
    throw new InvalidTriggerError(
      field,
      `${field} ${ms} ms is not a whole number of seconds: Temporal counts intervals in seconds and would drop the ${ms % 1000} ms`,
    );
  }
  return ms / 1000;
}

/** Which kind a trigger object is; throws when it mixes kinds or is none of them. */
export function triggerKind(trigger: Trigger): TriggerKind {
  const kinds: TriggerKind[] = [];
  if ('cron' in trigger && trigger.cron !== undefined) kinds.push('cron');
  if ('calendar' in trigger && trigger.calendar !== undefined) kinds.push('calendar');
  if ('runAt' in trigger && trigger.runAt !== undefined) kinds.push('once');
  const t = trigger as IntervalTrigger;
  if (
    t.every !== undefined ||
    (Object.keys(UNIT_MS) as (keyof typeof UNIT_MS)[]).some((u) => t[u] !== undefined)
  ) {
    kinds.push('interval');
  }
  if (kinds.length !== 1) {
    throw new InvalidTriggerError(
      'trigger',
      kinds.length === 0
        ? 'a job needs a trigger: { cron }, { calendar }, { every } (or seconds/minutes/...), or { runAt }'
        : `a job has one trigger, got ${kinds.join(' and ')}`,
    );
  }
  return kinds[0]!;
}

function compileRunAt(trigger: OneOffTrigger): Date {
  const raw = trigger.runAt;
  const date = parseInstant(raw, 'runAt', { error: InvalidTriggerError });
  const year = date.getUTCFullYear();
  if (year < MIN_YEAR || year > MAX_YEAR) {
    throw new InvalidTriggerError(
      'runAt',
      `runAt ${describeValue(raw)} is outside the years Temporal schedules (${MIN_YEAR}-${MAX_YEAR})`,
    );
  }
  return date;
}

/**
 * Compiles a trigger into a Temporal `ScheduleSpec`.
 *
 * @param defaultTimezone the scheduler's time zone, used when the trigger names none.
 * @param defaultDst the scheduler's DST policy, used when a cron or calendar trigger has no `dst`.
 * @param now when the holiday horizon starts (holiday sets in `exclude` are held for its year and the next three).
 * @throws InvalidTriggerError naming the bad option (InvalidPolicyError for a bad `dst`).
 */
export function compileTrigger(
  trigger: Trigger,
  defaultTimezone: string,
  defaultDst?: DstPolicy,
  now = new Date(),
): CompiledTrigger {
  const { quartz, ...when } = compileWhen(trigger, defaultTimezone, defaultDst);
  const years = horizonYears(now);
  // No DST policy given at all (`dst: {}` is one: the server's raw reading): correct misread weekdays.
  const given = (trigger as { dst?: unknown }).dst !== undefined || defaultDst !== undefined;
  const misread =
    !given && (when.kind === 'cron' || when.kind === 'calendar')
      ? misreadDefault(when.fire.calendars, when.timezone, years)
      : undefined;
  const compiled = misread ? { ...when, dst: misread } : when;
  const { exclude, businessDays } = trigger as CronTrigger;
  if (compiled.kind === 'once' && (exclude !== undefined || businessDays !== undefined)) {
    throw new InvalidTriggerError(
      exclude !== undefined ? 'exclude' : 'businessDays',
      'a one-off job runs at its runAt: exclude and businessDays apply to cron, calendar and interval triggers',
    );
  }
  const exclusions0 = compileExclusions(exclude, businessDays, now);
  const corrections = misreadCorrections(quartz, compiled.fire.calendars, compiled.timezone, years);
  // The weekday corrections are held for the holidays' years: they too end with the horizon.
  const horizon =
    exclusions0.horizon ??
    (corrections.length > 0 ? { from: years[0]!, to: years[years.length - 1]! } : undefined);
  const exclusions = {
    skip: [...exclusions0.skip, ...corrections],
    ...(horizon ? { horizon } : {}),
  };
  if (exclusions.skip.length === 0) return compiled;
  const skip = exclusions.skip.map((e) => e.calendar);
  return {
    ...compiled,
    exclusions,
    spec: { ...compiled.spec, skip: skip.map((c) => toCalendarSpec(c)) },
    fire: { ...compiled.fire, skip },
  };
}

/** The trigger's times, before exclusions; `quartz` lists the calendars Quartz day forms compiled to. */
function compileWhen(
  trigger: Trigger,
  defaultTimezone: string,
  defaultDst: DstPolicy | undefined,
): CompiledTrigger & { quartz: readonly StructuredCalendar[] } {
  if (typeof trigger !== 'object' || trigger === null) {
    throw new InvalidTriggerError('trigger', 'a trigger must be an object such as { cron: "0 2 * * *" }');
  }
  const kind = triggerKind(trigger);
  const timezone = validateTimezone(trigger.timezone ?? defaultTimezone);
  const dst = dstOf(trigger, kind, defaultDst);
  const withDst = dst ? { dst } : {};
  switch (kind) {
    case 'cron': {
      const crons = (trigger as CronTrigger).cron;
      const list = Array.isArray(crons) ? crons : [crons];
      if (list.length === 0) throw new InvalidTriggerError('cron', 'cron needs at least one expression');
      // Array.from: a sparse array's holes become undefined (and a typed error), where map() would skip them.
      const parsed = Array.from(list).map((c) => parseCron(c));
      // Temporal reads plain strings itself; a Quartz day form goes as the calendars it compiles to.
      const quartz = parsed.filter((p) => p.quartz).flatMap((p) => p.calendars);
      const plain = parsed.filter((p) => !p.quartz).map((p) => p.source);
      return {
        kind,
        timezone,
        spec: {
          ...(plain.length > 0 ? { cronExpressions: plain } : {}),
          ...(quartz.length > 0 ? { calendars: quartz.map((c) => toCalendarSpec(c)) } : {}),
          timezone,
        },
        fire: { timezone, calendars: parsed.flatMap((p) => p.calendars), intervals: [] },
        quartz,
        ...withDst,
      };
    }
    case 'calendar': {
      const compiled = compileCalendars((trigger as CalendarTrigger).calendar);
      return {
        kind,
        timezone,
        spec: { calendars: compiled.map((c) => c.spec), timezone },
        fire: { timezone, calendars: compiled.map((c) => c.calendar), intervals: [] },
        quartz: compiled.filter((c) => c.quartz).map((c) => c.calendar),
        ...withDst,
      };
    }
    case 'interval': {
      const t = trigger as IntervalTrigger;
      const every = intervalMs(t);
      const offset =
        t.offset === undefined
          ? 0
          : parseDuration(t.offset, 'offset', { allowZero: true, error: InvalidTriggerError });
      const unit = (Object.keys(UNIT_MS) as (keyof typeof UNIT_MS)[]).find((u) => t[u] !== undefined);
      const everySec = wholeSeconds(every, t.every !== undefined || !unit ? 'every' : unit);
      const offsetSec = wholeSeconds(offset, 'offset');
      if (offset >= every) {
        throw new InvalidTriggerError(
          'offset',
          `offset (${offset} ms) must be shorter than the interval (${every} ms)`,
        );
      }
      return {
        kind,
        timezone,
        spec: { intervals: [{ every, offset }], timezone },
        fire: { timezone, calendars: [], intervals: [{ everySec, offsetSec }] },
        quartz: [],
      };
    }
    case 'once': {
      const at = compileRunAt(trigger as OneOffTrigger);
      // One calendar match at that exact UTC second, and one remaining action.
      return {
        kind,
        timezone,
        remainingActions: 1,
        runAt: at,
        spec: {
          calendars: [
            {
              year: at.getUTCFullYear(),
              month: MONTH_NAMES[at.getUTCMonth()]!,
              dayOfMonth: at.getUTCDate(),
              hour: at.getUTCHours(),
              minute: at.getUTCMinutes(),
              second: at.getUTCSeconds(),
            },
          ],
          timezone: 'UTC',
        },
        fire: { timezone, calendars: [], intervals: [], atSec: Math.floor(at.getTime() / 1000) },
        quartz: [],
      };
    }
  }
}

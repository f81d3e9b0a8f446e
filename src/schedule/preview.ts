import { DateTime } from 'luxon';
import type { Duration } from '@temporalio/common';
import { compileTrigger } from './compile-trigger';
import { parseDuration } from '../parse/duration';
import { dstWarnings, type DstWarning } from './dst';
import { parseInstant } from '../parse/instant';
import { FireTimes } from './fire-times';
import { MAX_YEAR } from './cron-fields';
import type { Trigger } from './trigger-types';
import { nativeTimes, policySpans, policyTimes, type DstPolicy } from './dst-policy';
import { policyWarning } from './dst-policy-warnings';
import { describeValue, InvalidArgumentError } from '../errors';

/** One upcoming run. */
export interface PreviewFireTime {
  /** The instant, e.g. `2027-03-28T01:30:00Z`. */
  utc: string;
  /** The same instant in the trigger's time zone, with its offset, e.g. `2027-03-28T03:30:00+02:00`. */
  local: string;
  /**
   * With `jitter`: the end of the window the run starts in, `[utc, jitterUntil)` (UTC ISO). The server
   * delays each run by a stable pseudo-random amount below `jitter`, and never past the next time.
   */
  jitterUntil?: string;
}

/** A date on which `exclude` or `businessDays` removed runs the trigger names. */
export interface PreviewExcludedDate {
  /** Local date, `YYYY-MM-DD`. */
  date: string;
  /** What excluded it, e.g. `holiday FR: Christmas Day`, `weekend`, `2027-12-24 to 2027-12-31`. */
  reason: string;
  /** How many runs it removed on that date (within the preview's span). */
  runs: number;
}

/** What {@link previewTrigger} returns. */
export interface TriggerPreview {
  /** The zone `local` times are in: the trigger's, else the default. */
  timezone: string;
  /** The next runs, strictly after `from`, oldest first (fewer than asked when the trigger ends). */
  fireTimes: PreviewFireTime[];
  /** Every date in the 12 months after `from` where DST makes the job skip a run or run twice. */
  dstWarnings: DstWarning[];
  /** Dates between `from` and the last listed run on which exclusions removed runs, oldest first. */
  excludedDates: PreviewExcludedDate[];
  /** Years the trigger's holiday sets are held for (see docs/cron-and-timezones.md); absent without one. */
  holidayHorizon?: { from: number; to: number };
}

/** Options of {@link previewTrigger}. */
export interface PreviewOptions {
  /** Runs strictly after this instant are listed. @default now */
  from?: Date | string;
  /** Zone for a trigger that names none (the scheduler's `timezone`). @default 'UTC' */
  defaultTimezone?: string;
  /** The job's `jitter`: each fire time gets the window its run starts in. @default none */
  jitter?: Duration;
  /** DST policy for a cron or calendar trigger that has no `dst` (the scheduler's `dst`). @default Temporal's own behaviour */
  defaultDst?: DstPolicy;
}

/** Most fire times one preview lists (the server's ListScheduleMatchingTimes stops at 1,000 too). */
export const MAX_PREVIEW = 1000;

function fromInstant(from: Date | string | undefined): number {
  const ms = from === undefined ? Date.now() : parseInstant(from, 'from').getTime();
  return Math.floor(ms / 1000);
}

/** An instant (Unix seconds) as a fire time: in UTC and in `zone`, with its offset. */
export function formatFireTime(sec: number, zone: string): PreviewFireTime {
  const t = DateTime.fromSeconds(sec, { zone });
  return {
    utc: t.toUTC().toISO({ suppressMilliseconds: true })!,
    local: t.toISO({ suppressMilliseconds: true })!,
  };
}

/**
 * The next `n` fire times of a trigger after `from`, computed locally exactly as the Temporal server
 * computes them (same cron dialect, same DST handling, same exclusions), plus DST warnings for the coming
 * 12 months, the dates exclusions removed, and with `jitter` the window each run starts in. The job's
 * startAt/endAt are not applied.
 *
 * ```ts
 * previewTrigger({ cron: '30 2 * * *', timezone: 'Europe/Paris' }, 3, { from: '2027-03-27T00:00:00Z' });
 * // fireTimes: 03-27 02:30+01:00, 03-29 02:30+02:00, ... (03-28 02:30 does not exist)
 * // dstWarnings[0].message: '2027-03-28 02:30 Europe/Paris does not exist (clocks go 02:00 -> 03:00): Temporal skips this run'
 * ```
 *
 * @throws InvalidTriggerError for an invalid trigger, InvalidArgumentError for an invalid `n` or `from`.
 */
export function previewTrigger(trigger: Trigger, n: number, opts: PreviewOptions = {}): TriggerPreview {
  if (!Number.isInteger(n) || n < 1 || n > MAX_PREVIEW) {
    throw new InvalidArgumentError(
      'n',
      `n must be a whole number from 1 to ${MAX_PREVIEW}, got ${describeValue(n)}`,
    );
  }
  const compiled = compileTrigger(trigger, opts.defaultTimezone ?? 'UTC', opts.defaultDst);
  const jitterMs = opts.jitter === undefined ? 0 : parseDuration(opts.jitter, 'jitter', { allowZero: true });
  const from = fromInstant(opts.from);
  const fire = new FireTimes(compiled.fire);
  const labels = compiled.exclusions?.skip.map((e) => e.label) ?? [];
  const excluded = new Map<string, PreviewExcludedDate>();
  const noteExcluded = (t: number, by: number) => {
    const date = DateTime.fromSeconds(t, { zone: compiled.timezone }).toISODate()!;
    const entry = excluded.get(date) ?? { date, reason: labels[by]!, runs: 0 };
    entry.runs++;
    excluded.set(date, entry);
  };
  let times: number[];
  if (compiled.dst) {
    times = policyNext(fire, compiled.dst, from, n);
    // The policy lists allowed times only: note what exclusions removed up to the last one listed.
    const last = times[times.length - 1];
    if (labels.length > 0 && last !== undefined) {
      for (let t = fire.nominalNext(from); t !== undefined && t <= last; t = fire.nominalNext(t)) {
        const by = fire.excludedBy(t);
        if (by >= 0) noteExcluded(t, by);
      }
    }
  } else {
    times = [];
    let t: number | undefined = from;
    // The server's GetNextTime, step by step: nominal times, the excluded ones noted and stepped over.
    for (let skipped = 0; times.length < n && skipped < MAX_EXCLUDED_IN_A_ROW;) {
      t = fire.nominalNext(t);
      if (t === undefined) break;
      const by = fire.excludedBy(t);
      if (by >= 0) {
        skipped++;
        noteExcluded(t, by);
        continue;
      }
      skipped = 0;
      times.push(t);
    }
  }
  const fireTimes: PreviewFireTime[] = times.map((t) => ({
    ...formatFireTime(t, compiled.timezone),
    ...jitterWindow(fire, t, jitterMs),
  }));
  const yearLater = Math.floor(DateTime.fromSeconds(from, { zone: 'UTC' }).plus({ months: 12 }).toSeconds());
  // DST warnings are about the trigger's own times: a clock change on an excluded day is no news.
  const nominal = new FireTimes({ ...compiled.fire, skip: [] });
  const warnings = dstWarnings(nominal, from, yearLater).filter((w) => !allExcluded(fire, w));
  const rest = {
    excludedDates: [...excluded.values()],
    ...(compiled.exclusions?.horizon ? { holidayHorizon: compiled.exclusions.horizon } : {}),
  };
  if (!compiled.dst) return { timezone: compiled.timezone, fireTimes, dstWarnings: warnings, ...rest };
  // Changes a policy side decides are worded by what the policy did; the others keep Temporal's warnings.
  const spans = policySpans(fire, compiled.dst, from, yearLater).filter(
    (s) => s.tr.at > from && s.tr.at <= yearLater,
  );
  const decided = new Set(spans.map((s) => new Date(s.tr.at * 1000).toISOString().replace('.000Z', 'Z')));
  const own = spans.flatMap((s) => {
    const w = policyWarning(fire, s, nativeTimes(fire, s.i0 - 3 * 3600, s.i1 + 3 * 3600));
    return w ? [w] : [];
  });
  return {
    timezone: compiled.timezone,
    fireTimes,
    dstWarnings: [...warnings.filter((w) => !decided.has(w.transition)), ...own].sort((a, b) =>
      a.transition < b.transition ? -1 : a.transition > b.transition ? 1 : 0,
    ),
    ...rest,
  };
}

/**
 * Whether exclusions remove everything a DST warning is about: its day (the clock change falls on an
 * excluded day) or each of its times that exists (e.g. the correction of a misread weekday).
 */
function allExcluded(fire: FireTimes, w: DstWarning): boolean {
  if (fire.excludedBy(Math.floor(Date.parse(w.transition) / 1000)) >= 0) return true;
  const instants = w.localTimes.map((t) => (/[+-]\d\d:\d\d$|Z$/.test(t) ? Date.parse(t) : NaN));
  return instants.every((ms) => !Number.isNaN(ms) && fire.excludedBy(Math.floor(ms / 1000)) >= 0);
}

/** Most excluded times in a row a preview steps over (an exclusion that covers every time named). */
const MAX_EXCLUDED_IN_A_ROW = 200_000;

/** The window a jittered run starts in: at most `jitterMs`, and never reaching the next nominal time. */
function jitterWindow(fire: FireTimes, t: number, jitterMs: number): { jitterUntil?: string } {
  if (jitterMs <= 0) return {};
  const following = fire.nominalNext(t);
  const untilMs = Math.min(t * 1000 + jitterMs, following === undefined ? Infinity : following * 1000);
  return { jitterUntil: new Date(untilMs).toISOString().replace('.000Z', 'Z') };
}

/** Temporal's own next `n` fire times after `from`. */
function nativeNext(fire: FireTimes, from: number, n: number): number[] {
  const out: number[] = [];
  for (let t = fire.next(from); t !== undefined && out.length < n; t = fire.next(t)) out.push(t);
  return out;
}

/** The next `n` times under a DST policy: Temporal's times up to a bound, with the decided spans replaced. */
function policyNext(fire: FireTimes, policy: DstPolicy, from: number, n: number): number[] {
  for (let k = n + 8; ; k *= 2) {
    const native = nativeNext(fire, from, k);
    // Past the last native time listed, a span may still add runs: look two days further.
    const to = native.length < k ? Number.MAX_SAFE_INTEGER : native[native.length - 1]!;
    const bound = Math.min(to + 2 * 86_400, Date.UTC(MAX_YEAR + 1, 0, 1) / 1000);
    const times = policyTimes(fire, policy, from, bound).filter((t) => t <= to || native.length < k);
    if (times.length >= n || native.length < k) return times.slice(0, n);
  }
}

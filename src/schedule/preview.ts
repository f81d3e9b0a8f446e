import { DateTime } from 'luxon';
import { compileTrigger } from './compile-trigger';
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
}

/** What {@link previewTrigger} returns. */
export interface TriggerPreview {
  /** The zone `local` times are in: the trigger's, else the default. */
  timezone: string;
  /** The next runs, strictly after `from`, oldest first (fewer than asked when the trigger ends). */
  fireTimes: PreviewFireTime[];
  /** Every date in the 12 months after `from` where DST makes the job skip a run or run twice. */
  dstWarnings: DstWarning[];
}

/** Options of {@link previewTrigger}. */
export interface PreviewOptions {
  /** Runs strictly after this instant are listed. @default now */
  from?: Date | string;
  /** Zone for a trigger that names none (the scheduler's `timezone`). @default 'UTC' */
  defaultTimezone?: string;
  /** DST policy for a cron or calendar trigger that has no `dst` (the scheduler's `dst`). @default Temporal's own behaviour */
  defaultDst?: DstPolicy;
}

/** Most fire times one preview lists (the server's ListScheduleMatchingTimes stops at 1,000 too). */
export const MAX_PREVIEW = 1000;

function fromInstant(from: Date | string | undefined): number {
  const ms = from === undefined ? Date.now() : parseInstant(from, 'from').getTime();
  return Math.floor(ms / 1000);
}

function format(sec: number, zone: string): PreviewFireTime {
  const t = DateTime.fromSeconds(sec, { zone });
  return {
    utc: t.toUTC().toISO({ suppressMilliseconds: true })!,
    local: t.toISO({ suppressMilliseconds: true })!,
  };
}

/**
 * The next `n` fire times of a trigger after `from`, computed locally exactly as the Temporal server
 * computes them (same cron dialect, same DST handling), plus DST warnings for the coming 12 months.
 * Jitter and the job's startAt/endAt are not applied.
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
  const from = fromInstant(opts.from);
  const fire = new FireTimes(compiled.fire);
  const times = compiled.dst ? policyNext(fire, compiled.dst, from, n) : nativeNext(fire, from, n);
  const fireTimes = times.map((t) => format(t, compiled.timezone));
  const yearLater = Math.floor(DateTime.fromSeconds(from, { zone: 'UTC' }).plus({ months: 12 }).toSeconds());
  const warnings = dstWarnings(fire, from, yearLater);
  if (!compiled.dst) return { timezone: compiled.timezone, fireTimes, dstWarnings: warnings };
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
  };
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

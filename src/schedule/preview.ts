import { DateTime } from 'luxon';
import { compileTrigger } from './compile-trigger';
import { dstWarnings, type DstWarning } from './dst';
import { parseInstant } from '../parse/instant';
import { FireTimes } from './fire-times';
import type { Trigger } from './trigger-types';
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
  const compiled = compileTrigger(trigger, opts.defaultTimezone ?? 'UTC');
  const from = fromInstant(opts.from);
  const fire = new FireTimes(compiled.fire);
  const fireTimes: PreviewFireTime[] = [];
  let t: number | undefined = from;
  while (fireTimes.length < n) {
    t = fire.next(t);
    if (t === undefined) break;
    fireTimes.push(format(t, compiled.timezone));
  }
  const yearLater = Math.floor(DateTime.fromSeconds(from, { zone: 'UTC' }).plus({ months: 12 }).toSeconds());
  return { timezone: compiled.timezone, fireTimes, dstWarnings: dstWarnings(fire, from, yearLater) };
}

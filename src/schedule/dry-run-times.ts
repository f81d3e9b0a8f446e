import { compileTrigger } from './compile-trigger';
import { compileDstPolicy } from './dst-compile';
import { InvalidWindowError } from './errors';
import { FireTimes } from './fire-times';
import { formatFireTime, MAX_PREVIEW, previewTrigger, type TriggerPreview } from './preview';
import type { DstPolicy } from './dst-policy';
import type { Trigger } from './trigger-types';

/*
 * The times the server fires a job in a window, from the one model of them: previewTrigger's times (the
 * trigger, its exclusions and DST policy, jitter windows) plus the fires of Temporal's that the DST policy
 * leaves to the run guard (compileDstPolicy's skips, as the scheduler compiles them when it writes the
 * job), less what the spec's startAt/endAt cut off. So the list is what ListScheduleMatchingTimes answers.
 */

/** One time the server fires the job. */
export interface ServerFire {
  /** Unix ms. */
  at: number;
  utc: string;
  local: string;
  /** A fire of Temporal's that the job's DST policy does not run: its run skips itself (`dst`). */
  dstSkip: boolean;
  jitterUntil?: string;
}

/** What {@link serverFires} is told besides the trigger. */
export interface ServerFiresOptions {
  defaultTimezone: string;
  defaultDst?: DstPolicy;
  jitterMs?: number;
  startAt?: Date;
  endAt?: Date;
}

/**
 * The fires in `(fromMs, toMs]`, oldest first, and the preview they came from.
 *
 * @throws InvalidWindowError (field `field`) when the span holds more than {@link MAX_PREVIEW} fires.
 */
export function serverFires(
  trigger: Trigger,
  fromMs: number,
  toMs: number,
  opts: ServerFiresOptions,
  field = 'to',
): { timezone: string; fires: ServerFire[]; preview: TriggerPreview } {
  const preview = previewTrigger(trigger, MAX_PREVIEW, {
    from: new Date(fromMs),
    defaultTimezone: opts.defaultTimezone,
    ...(opts.defaultDst ? { defaultDst: opts.defaultDst } : {}),
    ...(opts.jitterMs !== undefined ? { jitter: opts.jitterMs } : {}),
  });
  const tooMany = (at: string) =>
    new InvalidWindowError(
      field,
      `the window ${new Date(fromMs).toISOString()} to ${new Date(toMs).toISOString()} holds more than ${MAX_PREVIEW.toLocaleString('en-US')} occurrences of this job (the ${MAX_PREVIEW.toLocaleString('en-US')}th is at ${at}): give a "${field}" of ${at} or earlier, and dry-run the rest in another window`,
    );
  const last = preview.fireTimes[preview.fireTimes.length - 1];
  if (preview.fireTimes.length === MAX_PREVIEW && Date.parse(last!.utc) <= toMs) throw tooMany(last!.utc);
  const fires: ServerFire[] = preview.fireTimes
    .filter((f) => Date.parse(f.utc) <= toMs)
    .map((f) => ({ at: Date.parse(f.utc), ...f, dstSkip: false }));
  const compiled = compileTrigger(trigger, opts.defaultTimezone, opts.defaultDst);
  if (compiled.dst) {
    const dst = compileDstPolicy(
      new FireTimes(compiled.fire),
      compiled.dst,
      Math.floor(fromMs / 1000),
      Math.floor(toMs / 1000),
    );
    for (const utc of dst.skips) {
      const sec = Date.parse(utc) / 1000;
      // compileDstPolicy also lists its interval entries' second matches, decades ahead: keep the window's.
      if (sec * 1000 <= fromMs || sec * 1000 > toMs) continue;
      fires.push({ at: sec * 1000, ...formatFireTime(sec, compiled.timezone), dstSkip: true });
    }
    fires.sort((a, b) => a.at - b.at);
  }
  // The spec's startAt/endAt bound every fire, the guard's skips included.
  const kept = fires.filter(
    (f) =>
      (opts.startAt === undefined || f.at >= opts.startAt.getTime()) &&
      (opts.endAt === undefined || f.at <= opts.endAt.getTime()),
  );
  if (kept.length > MAX_PREVIEW) throw tooMany(kept[MAX_PREVIEW - 1]!.utc);
  return { timezone: preview.timezone, fires: kept, preview };
}

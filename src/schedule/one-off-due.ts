import type { CompiledTrigger } from './compile-trigger';
import { InvalidTriggerError } from './errors';

/*
 * When a one-off job's runAt is not safely in the future. Temporal never fires a schedule time that is
 * already past when the schedule is written, so such a job would wait forever. The rule (APScheduler's
 * misfire grace): a runAt late by no more than the grace runs at once, anything later is refused.
 */

/**
 * The lateness accepted when neither the job nor the scheduler sets `misfireGraceTime`: APScheduler's
 * default `misfire_grace_time`, enough for `runAt: new Date()`.
 */
export const DEFAULT_RUN_AT_GRACE_MS = 1_000;

/**
 * A runAt whose second starts sooner than this is run at once: the server could reach that second before
 * the schedule is in place, and would then never fire it.
 */
export const RUN_AT_LEAD_MS = 1_000;

/** Where the grace a past runAt was measured against came from. */
export type GraceSource = 'job' | 'scheduler' | 'default';

/** A one-off that must run at once: the schedule backfills `at` (the second its spec matches). */
export interface DueOneOff {
  at: Date;
  /** How late the runAt is (0 when it is less than {@link RUN_AT_LEAD_MS} ahead). */
  lateMs: number;
}

/** A runAt later than the grace allows: creating the job would give a schedule that never fires. */
export class RunAtInPastError extends InvalidTriggerError {
  constructor(
    readonly runAt: Date,
    readonly lateMs: number,
    readonly graceMs: number,
    readonly graceFrom: GraceSource,
  ) {
    const grace =
      graceFrom === 'default'
        ? `neither the job nor the scheduler sets misfireGraceTime (without it a runAt may be ${formatLate(graceMs)} late)`
        : `the ${graceFrom}'s misfireGraceTime is ${formatLate(graceMs)}`;
    const needed = graceToAccept(lateMs);
    super(
      'runAt',
      `runAt ${runAt.toISOString()} is ${formatLate(lateMs)} in the past and ${grace}: give a runAt in the future, or pass misfireGraceTime: '${needed}' or more (on the job, or on the PipelineScheduler) to run it at once`,
    );
  }
}

/**
 * Decides whether a one-off runs at its time (undefined) or at once ({@link DueOneOff}).
 *
 * @param grace the job's misfireGraceTime in ms, else the scheduler's, with where it came from.
 * @throws RunAtInPastError when the runAt is later than the grace.
 */
export function dueOneOff(
  compiled: CompiledTrigger,
  grace: { ms: number | undefined; from: GraceSource },
  now: Date,
): DueOneOff | undefined {
  if (!compiled.runAt) return undefined;
  const runAt = compiled.runAt;
  // The spec matches the whole second of runAt.
  const at = new Date(Math.floor(runAt.getTime() / 1000) * 1000);
  if (at.getTime() - now.getTime() >= RUN_AT_LEAD_MS) return undefined;
  const lateMs = Math.max(0, now.getTime() - runAt.getTime());
  const graceMs = grace.ms ?? DEFAULT_RUN_AT_GRACE_MS;
  const from: GraceSource = grace.ms === undefined ? 'default' : grace.from;
  if (lateMs > graceMs) throw new RunAtInPastError(runAt, lateMs, graceMs, from);
  return { at, lateMs };
}

/** The smallest whole-unit duration string that accepts this lateness and a moment more: `5s`, `2m`, `3h`. */
function graceToAccept(lateMs: number): string {
  const s = Math.floor(lateMs / 1000) + 2;
  if (s < 60) return `${s}s`;
  if (s < 3_600) return `${Math.ceil(s / 60)}m`;
  if (s < 86_400) return `${Math.ceil(s / 3_600)}h`;
  return `${Math.ceil(s / 86_400)}d`;
}

/** A lateness for people: `3h 2m`, `41s`, `350ms`. */
function formatLate(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  let s = Math.round(ms / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    if (s >= size) {
      parts.push(`${Math.floor(s / size)}${unit}`);
      s %= size;
    }
  }
  if (s > 0 || parts.length === 0) parts.push(`${s}s`);
  return parts.join(' ');
}

/**
 * {@link dueOneOff} with the job's own misfireGraceTime when it sets one, else the scheduler's (each in
 * milliseconds, undefined when unset).
 */
export function dueOneOffWithGrace(
  compiled: CompiledTrigger,
  graceMs: { job: number | undefined; scheduler: number | undefined },
  now: Date,
): DueOneOff | undefined {
  const grace =
    graceMs.job !== undefined
      ? { ms: graceMs.job, from: 'job' as const }
      : { ms: graceMs.scheduler, from: 'scheduler' as const };
  return dueOneOff(compiled, grace, now);
}

import type { ScheduleOverlapPolicy } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { parseDuration } from '../parse/duration';
import { parseInstant } from '../parse/instant';
import { InvalidPolicyError } from './errors';
import { describeValue } from '../errors';

/**
 * When and how often a job may run, in APScheduler's terms (`maxInstances`, `coalesce`,
 * `misfireGraceTime`) or Temporal's (`overlap`, `catchupWindow`, ...). See docs/scheduling.md.
 */
export interface JobPolicies {
  /** Most runs of this job at once. @default 1 */
  maxInstances?: number;
  /** With maxInstances 1: true skips a run due while one is running (SKIP), false queues it (BUFFER_ALL). @default true */
  coalesce?: boolean;
  /** A run starting later than this after its nominal time is skipped (misfire). @default Temporal's catch-up window, 1 year */
  misfireGraceTime?: Duration;
  /** Temporal's overlap policy, for users who think in Temporal terms; overrides maxInstances/coalesce. */
  overlap?: 'SKIP' | 'BUFFER_ONE' | 'BUFFER_ALL' | 'CANCEL_OTHER' | 'TERMINATE_OTHER' | 'ALLOW_ALL';
  /**
   * Temporal's catch-up window (min 10 s): how late the server may still start a time, retrying a start that
   * fails. @default misfireGraceTime raised to 1 minute, else 1 year
   */
  catchupWindow?: Duration;
  /** Pause the schedule when a run fails. @default false */
  pauseOnFailure?: boolean;
  /** Random delay up to this added to each run. */
  jitter?: Duration;
  /** No run before this instant. */
  startAt?: string | Date;
  /** No run after this instant. */
  endAt?: string | Date;
}

/** Policies in Temporal's terms plus what the workflow enforces itself. */
export interface CompiledPolicies {
  overlap: ScheduleOverlapPolicy;
  catchupWindowMs?: number;
  pauseOnFailure: boolean;
  jitterMs?: number;
  startAt?: Date;
  endAt?: Date;
  /** Enforced in the workflow: runs later than this after their nominal time are skipped. */
  misfireGraceMs?: number;
  /** Enforced by the per-job semaphore when above 1. */
  maxInstances: number;
}

/** Temporal's floor for the catch-up window. */
export const MIN_CATCHUP_WINDOW_MS = 10_000;
/**
 * The catch-up window a job with a misfireGraceTime gets, at least. Temporal retries a start that fails
 * (a server or its database away) until the time's catch-up window ends, then drops it: no run, and no
 * count in the schedule's skips (`processBuffer` in Temporal 1.32's scheduler workflow). A window as short
 * as the grace lost occurrences silently after an outage of about 10 s; with a minute, such a time starts
 * late once the server is back and its run skips itself as a misfire (an outcome in the job's history, with
 * its `missed` alert), the lateness judged by the run guard against misfireGraceTime.
 */
export const GRACE_CATCHUP_WINDOW_MS = 60_000;

const OVERLAPS = [
  'SKIP',
  'BUFFER_ONE',
  'BUFFER_ALL',
  'CANCEL_OTHER',
  'TERMINATE_OTHER',
  'ALLOW_ALL',
] as const;

/**
 * Maps APScheduler-style and Temporal-style policies onto Temporal's schedule policies.
 *
 * @throws InvalidPolicyError naming the bad option.
 */
export function compilePolicies(p: JobPolicies): CompiledPolicies {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) {
    throw new InvalidPolicyError('policies', `job policies must be an object, got ${describeValue(p)}`);
  }
  for (const key of ['coalesce', 'pauseOnFailure'] as const) {
    if (p[key] !== undefined && typeof p[key] !== 'boolean') {
      throw new InvalidPolicyError(key, `${key} must be true or false, got ${describeValue(p[key])}`);
    }
  }
  const maxInstances = p.maxInstances ?? 1;
  if (!Number.isInteger(maxInstances) || maxInstances < 1) {
    throw new InvalidPolicyError(
      'maxInstances',
      `maxInstances must be a whole number of 1 or more, got ${describeValue(p.maxInstances)}`,
    );
  }
  if (p.overlap !== undefined && !OVERLAPS.includes(p.overlap)) {
    throw new InvalidPolicyError(
      'overlap',
      `overlap ${describeValue(p.overlap)} is not one of ${OVERLAPS.join(', ')}`,
    );
  }
  if (
    p.overlap !== undefined &&
    p.maxInstances !== undefined &&
    p.maxInstances > 1 &&
    p.overlap !== 'ALLOW_ALL'
  ) {
    throw new InvalidPolicyError(
      'overlap',
      `maxInstances ${p.maxInstances} needs overlap ALLOW_ALL (or no overlap), got ${p.overlap}`,
    );
  }
  const overlap: ScheduleOverlapPolicy =
    p.overlap ?? (maxInstances > 1 ? 'ALLOW_ALL' : p.coalesce === false ? 'BUFFER_ALL' : 'SKIP');

  const duration = (value: Duration, field: string) =>
    parseDuration(value, field, { error: InvalidPolicyError });
  // A string without an offset would be read in the client's local zone: parseInstant refuses to guess.
  const instant = (value: string | Date, field: string) =>
    parseInstant(value, field, { error: InvalidPolicyError });
  const misfireGraceMs =
    p.misfireGraceTime === undefined ? undefined : duration(p.misfireGraceTime, 'misfireGraceTime');
  let catchupWindowMs =
    p.catchupWindow === undefined ? undefined : duration(p.catchupWindow, 'catchupWindow');
  if (catchupWindowMs !== undefined && catchupWindowMs < MIN_CATCHUP_WINDOW_MS) {
    throw new InvalidPolicyError(
      'catchupWindow',
      `catchupWindow must be at least 10s (Temporal's minimum), got ${catchupWindowMs} ms`,
    );
  }
  if (catchupWindowMs === undefined && misfireGraceMs !== undefined) {
    catchupWindowMs = Math.max(GRACE_CATCHUP_WINDOW_MS, misfireGraceMs);
  }
  const out: CompiledPolicies = { overlap, pauseOnFailure: p.pauseOnFailure ?? false, maxInstances };
  if (catchupWindowMs !== undefined) out.catchupWindowMs = catchupWindowMs;
  if (misfireGraceMs !== undefined) out.misfireGraceMs = misfireGraceMs;
  if (p.jitter !== undefined) out.jitterMs = duration(p.jitter, 'jitter');
  if (p.startAt !== undefined) out.startAt = instant(p.startAt, 'startAt');
  if (p.endAt !== undefined) out.endAt = instant(p.endAt, 'endAt');
  if (out.startAt && out.endAt && out.endAt <= out.startAt) {
    throw new InvalidPolicyError('endAt', 'endAt must be after startAt');
  }
  return out;
}

/**
 * The overlap policy a backfill of a job passes to Temporal, given the job's own. A backfill asks for each
 * time of its window, so its runs never drop or end one another: ALLOW_ALL (maxInstances > 1, the
 * semaphore bounds them) starts them at once, every other policy queues them (BUFFER_ALL), one run at a
 * time. Under the job's own SKIP, Temporal would start the window's first time and skip the rest, which
 * come due while that run is open (docs/scheduling.md, "Backfill").
 */
export function backfillOverlap(jobOverlap: ScheduleOverlapPolicy): ScheduleOverlapPolicy {
  return jobOverlap === 'ALLOW_ALL' ? 'ALLOW_ALL' : 'BUFFER_ALL';
}

import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { parseDuration, type DurationInput } from '../../parse/duration';
import type { RetrySpec } from '../../pipeline/spec';
import type { Steps } from '../../worker/create-worker';
import {
  DEFAULT_START_TO_CLOSE_MS,
  toRetryPolicy,
  type ActivityFields,
} from '../../workflows/run/step-options';
import type { RunControl } from './run-control';
import type { AttemptRecord, StepAttemptInfo, StepDuration, StepRecord } from './schedule-env-types';
import { RunCancelled } from './virtual-clock';

/*
 * One activity call of a run in virtual time, with Temporal's retry rules as the workflow gives them to the
 * server (toRetryPolicy, the interpreter's own compile of a step's retry spec; Temporal's defaults for what
 * it leaves out: 1 s initial interval, coefficient 2, maximum interval 100 x the initial one, unlimited
 * attempts). Each attempt calls the real step function in an activity context (the SDK's
 * MockActivityEnvironment: Context.current() works) and takes its StepDuration of virtual time; an attempt
 * longer than its startToClose (or what is left of scheduleToClose) times out; an attempt whose worker goes
 * down under it is lost and times out (after its heartbeat timeout when it has one). A non-retryable
 * failure, the last attempt, or a next retry past scheduleToClose fails the call for good.
 */

/** The call failed for good (or was cancelled): what the interpreter's StepFailed carries. */
export class AttemptsFailed extends Error {
  constructor(
    readonly attempts: number,
    readonly error: Error,
    readonly cancelled: RunCancelled | undefined,
  ) {
    super(error.message, { cause: error });
  }
}

/** What one call needs to know of its run. */
export interface CallContext {
  control: RunControl;
  steps: Steps;
  durations: Record<string, StepDuration>;
  workflowId: string;
  /** Where the attempts are recorded. */
  record: (step: StepRecord) => void;
  /** Compensations and hooks run in sleeps the run's cancellation does not end. */
  shielded?: boolean;
}

/** Timeout failures as the SDK shows them under ActivityFailure: `TimeoutFailure` with this message. */
class TimeoutFailure extends Error {
  constructor(kind: 'StartToClose' | 'ScheduleToClose' | 'Heartbeat') {
    super(`activity ${kind} timeout`);
    this.name = 'TimeoutFailure';
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

function durationOf(given: StepDuration | undefined, info: StepAttemptInfo): number {
  if (given === undefined) return 0;
  const value = typeof given === 'function' ? given(info) : given;
  return parseDuration(value as DurationInput, `durations.${info.activity}`, { allowZero: true });
}

/** Whether Temporal retries after this failure, by the retry policy's rules. */
function retryable(err: Error, nonRetryable: readonly string[] | undefined): boolean {
  if (err instanceof ApplicationFailure && err.nonRetryable) return false;
  const type = err instanceof ApplicationFailure ? (err.type ?? err.name) : err.name;
  return !(nonRetryable ?? []).includes(type);
}

/** Calls `activity` for `stepId` until it succeeds or fails for good; returns its result. */
export async function callActivity(
  ctx: CallContext,
  fields: ActivityFields,
  activity: string,
  stepId: string,
  args: unknown[],
  retrySpec: RetrySpec | undefined = fields.retry,
): Promise<unknown> {
  const { control } = ctx;
  const clock = control.clock;
  const fn = ctx.steps[activity];
  const policy = toRetryPolicy(retrySpec) ?? {};
  const initial = Number(policy.initialInterval ?? 1000);
  const coefficient = policy.backoffCoefficient ?? 2;
  const maxInterval = Number(policy.maximumInterval ?? 100 * initial);
  const maxAttempts = policy.maximumAttempts ?? 0;
  const startToClose = fields.startToCloseMs ?? DEFAULT_START_TO_CLOSE_MS;
  const scheduledAt = clock.now();
  const scheduleDeadline =
    fields.scheduleToCloseMs !== undefined ? scheduledAt + fields.scheduleToCloseMs : Infinity;
  const record: StepRecord = { stepId, activity, attempts: [], status: 'running' };
  ctx.record(record);
  const opts = { shielded: ctx.shielded === true };
  for (let attempt = 1; ; attempt++) {
    let error: Error;
    try {
      await control.task(opts);
      const start = clock.now();
      if (start >= scheduleDeadline)
        throw new AttemptsFailed(attempt - 1, new TimeoutFailure('ScheduleToClose'), undefined);
      const env = new MockActivityEnvironment({
        attempt,
        activityId: stepId,
        activityType: activity,
        workflowExecution: { workflowId: ctx.workflowId, runId: `${ctx.workflowId}-run` },
        scheduledTimestampMs: scheduledAt,
        startToCloseTimeoutMs: startToClose,
        ...(fields.heartbeatMs !== undefined ? { heartbeatTimeoutMs: fields.heartbeatMs } : {}),
        currentAttemptScheduledTimestampMs: start,
      });
      // The function runs at the attempt's start; its answer lands when its virtual time is up.
      const outcome = clock.track(
        (async () => env.run(fn as (...a: unknown[]) => Promise<unknown>, ...args))().then(
          (value) => ({ ok: true as const, value }),
          (err: unknown) => ({
            ok: false as const,
            err: err instanceof Error ? err : new Error(String(err)),
          }),
        ),
      );
      const took = durationOf(ctx.durations[activity], { stepId, activity, attempt, args });
      const limit = Math.min(startToClose, scheduleDeadline - start);
      const lostAt = control.workers.downWithin(start, start + Math.min(took, limit));
      const attemptRecord = (endedAt: number, o: AttemptRecord['outcome'], e?: Error): AttemptRecord => ({
        attempt,
        startedAt: iso(start),
        endedAt: iso(endedAt),
        outcome: o,
        ...(e
          ? { error: e.message, errorType: e instanceof ApplicationFailure ? (e.type ?? e.name) : e.name }
          : {}),
      });
      if (lostAt !== undefined) {
        // The worker died under it: the server notices at its heartbeat or startToClose deadline.
        const noticed = Math.min(start + (fields.heartbeatMs ?? startToClose), scheduleDeadline);
        await control.sleep(noticed - start, opts);
        const kind =
          noticed === scheduleDeadline
            ? 'ScheduleToClose'
            : fields.heartbeatMs !== undefined
              ? 'Heartbeat'
              : 'StartToClose';
        error = new TimeoutFailure(kind);
        record.attempts.push(attemptRecord(clock.now(), 'lost', error));
        if (kind === 'ScheduleToClose') throw new AttemptsFailed(attempt, error, undefined);
      } else if (took > limit) {
        await control.sleep(limit, opts);
        const kind = limit === startToClose ? 'StartToClose' : 'ScheduleToClose';
        error = new TimeoutFailure(kind);
        record.attempts.push(attemptRecord(clock.now(), 'timeout', error));
        if (kind === 'ScheduleToClose') throw new AttemptsFailed(attempt, error, undefined);
      } else {
        const result = await outcome;
        await control.sleep(took, opts);
        if (result.ok) {
          record.attempts.push(attemptRecord(clock.now(), 'completed'));
          record.status = 'completed';
          return result.value;
        }
        error = result.err;
        record.attempts.push(attemptRecord(clock.now(), 'failed', error));
      }
    } catch (err) {
      if (err instanceof AttemptsFailed) {
        record.status = 'failed';
        throw err;
      }
      if (err instanceof RunCancelled) {
        record.status = 'cancelled';
        throw new AttemptsFailed(attempt, err, err);
      }
      throw err;
    }
    const last = maxAttempts > 0 && attempt >= maxAttempts;
    if (last || !retryable(error, policy.nonRetryableErrorTypes)) {
      record.status = 'failed';
      throw new AttemptsFailed(attempt, error, undefined);
    }
    const own =
      error instanceof ApplicationFailure &&
      error.nextRetryDelay !== undefined &&
      error.nextRetryDelay !== null
        ? parseDuration(error.nextRetryDelay as never, 'nextRetryDelay', { allowZero: true })
        : undefined;
    const backoff = own ?? Math.min(initial * coefficient ** (attempt - 1), maxInterval);
    if (clock.now() + backoff >= scheduleDeadline) {
      record.status = 'failed';
      throw new AttemptsFailed(attempt, error, undefined);
    }
    try {
      await control.sleep(backoff, opts);
    } catch (err) {
      record.status = 'cancelled';
      if (err instanceof RunCancelled) throw new AttemptsFailed(attempt, err, err);
      throw err;
    }
  }
}

/*
 * Compiles a step's spec into Temporal activity options, and reads back what a failure says about the
 * attempts made. Changing a default here changes how recorded runs replay: guard it with `patched()`.
 */
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  proxyActivities,
  proxyLocalActivities,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import { RetryState, type RetryPolicy } from '@temporalio/common';
import type { MapSpec, RetrySpec, StepSpec } from '../../pipeline/spec';
import { ATTEMPT_MARKER_TYPE } from '../failure-types';

/** Default attempt timeout of a step that sets none: long enough for real work, short enough to notice a hang. */
export const DEFAULT_START_TO_CLOSE_MS = 10 * 60_000;

/**
 * Whether a cancelled run waits for its running steps to stop before it goes on (and so before it gives
 * back its concurrency slot): set for the runs of a pipeline with `maxConcurrentTotal` or `whenFull` (see
 * {@link waitForCancelledSteps}), so that a run cancelled to make room never overlaps the one that takes
 * its slot. Module state is per workflow execution (the SDK gives each its own module cache); runs
 * recorded before those options never set it, and replay as they ran.
 */
let cancelWaitsForSteps = false;

/** From now on, this run's steps are cancelled with WAIT_CANCELLATION_COMPLETED (see above). */
export function waitForCancelledSteps(): void {
  cancelWaitsForSteps = true;
}
const cancellationType = () =>
  cancelWaitsForSteps ? { cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED } : {};

/** A step's {@link RetrySpec} as the SDK's `RetryPolicy`; undefined leaves Temporal's defaults. */
export function toRetryPolicy(retry: RetrySpec | undefined): RetryPolicy | undefined {
  if (!retry) return undefined;
  return {
    ...(retry.maximumAttempts !== undefined ? { maximumAttempts: retry.maximumAttempts } : {}),
    ...(retry.initialIntervalMs !== undefined ? { initialInterval: retry.initialIntervalMs } : {}),
    ...(retry.backoffCoefficient !== undefined ? { backoffCoefficient: retry.backoffCoefficient } : {}),
    ...(retry.maximumIntervalMs !== undefined ? { maximumInterval: retry.maximumIntervalMs } : {}),
    ...(retry.nonRetryableErrorTypes !== undefined
      ? { nonRetryableErrorTypes: retry.nonRetryableErrorTypes }
      : {}),
  };
}

/** What activity options are read from: a step, a map, or a child pipeline's compensation (defaults only). */
export type ActivityFields = Partial<
  Pick<
    StepSpec | MapSpec,
    'activity' | 'local' | 'retry' | 'startToCloseMs' | 'scheduleToCloseMs' | 'heartbeatMs' | 'priority'
  >
>;

/**
 * Activity options of a step (or a map item). `activityId` is the step id, so the history names it; when
 * it differs from the activity's name, the id with the activity is the activity's summary in the Temporal
 * UI (user metadata: not compared on replay, so runs recorded with or without it replay unchanged).
 */
export function activityOptions(
  step: ActivityFields,
  activityId: string,
  retrySpec: RetrySpec | undefined = step.retry,
): ActivityOptions {
  const retry = toRetryPolicy(retrySpec);
  return {
    startToCloseTimeout: step.startToCloseMs ?? DEFAULT_START_TO_CLOSE_MS,
    ...(step.scheduleToCloseMs !== undefined ? { scheduleToCloseTimeout: step.scheduleToCloseMs } : {}),
    ...(step.heartbeatMs !== undefined ? { heartbeatTimeout: step.heartbeatMs } : {}),
    ...(retry ? { retry } : {}),
    // Only a step's own: without it the activity inherits the run's (Temporal's rule).
    ...(step.priority ? { priority: step.priority } : {}),
    ...cancellationType(),
    activityId,
    // A step named as its activity needs no summary: the event history shows the activity's type, which
    // says the same (and each summary is a payload more to encode, send and keep per step).
    ...(activityId === step.activity
      ? {}
      : { summary: step.activity === undefined ? activityId : `${activityId}: ${step.activity}` }),
  };
}

/**
 * Local activity options of a local step: the same timeouts and retry policy. A local activity has no
 * activity id of its own (the SDK numbers it), so a step path other than the activity's name travels as
 * its `summary`: the history's marker names the step, and the idempotency interceptor passes it on to
 * `stepIdempotencyKey()` (a step named as its activity has no summary: its activity type is its path).
 */
export function localActivityOptions(
  step: ActivityFields,
  stepPath: string,
  retrySpec: RetrySpec | undefined = step.retry,
): LocalActivityOptions {
  const retry = toRetryPolicy(retrySpec);
  return {
    startToCloseTimeout: step.startToCloseMs ?? DEFAULT_START_TO_CLOSE_MS,
    ...(step.scheduleToCloseMs !== undefined ? { scheduleToCloseTimeout: step.scheduleToCloseMs } : {}),
    ...(retry ? { retry } : {}),
    ...cancellationType(),
    // The step path names the call (its marker in the UI, stepIdempotencyKey()) where the activity's name
    // does not: a step named as its activity needs none (the idempotency interceptor takes the type).
    ...(stepPath === step.activity ? {} : { summary: stepPath }),
  };
}

type AnyActivity = (...args: unknown[]) => Promise<unknown>;

/**
 * The function that calls `activity` for a step: a local activity for a local step, else a regular one
 * (on `taskQueue` when given: the queue of a step served elsewhere, or a rate-limited step's companion queue;
 * a local step has none, the builder refuses
 * both). `stepPath` names the call in the history (`<step id>`, `<map id>[i]`, `<step id>:compensate`).
 */
export function stepActivity(
  step: ActivityFields,
  activity: string,
  stepPath: string,
  retrySpec: RetrySpec | undefined = step.retry,
  taskQueue?: string,
): AnyActivity {
  if (step.local) {
    return proxyLocalActivities<Record<string, AnyActivity>>(localActivityOptions(step, stepPath, retrySpec))[
      activity
    ]!;
  }
  const options = activityOptions(step, stepPath, retrySpec);
  return proxyActivities<Record<string, AnyActivity>>(taskQueue ? { ...options, taskQueue } : options)[
    activity
  ]!;
}

/**
 * Attempts a step made before failing for good: the interceptor's marker when present, else
 * `maximumAttempts` for a step that exhausted its policy; unknown otherwise (e.g. a heartbeat timeout on
 * a worker without the interceptor).
 */
export function attemptsOf(err: unknown, retry: RetrySpec | undefined): number | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof ApplicationFailure && e.type === ATTEMPT_MARKER_TYPE) {
      const attempt = (e.details?.[0] as { attempt?: unknown } | undefined)?.attempt;
      if (typeof attempt === 'number') return attempt;
    }
  }
  if (err instanceof ActivityFailure && err.retryState === RetryState.MAXIMUM_ATTEMPTS_REACHED) {
    return retry?.maximumAttempts;
  }
  return undefined;
}

/** The user's own failure under Temporal's `ActivityFailure` (or a child's `ChildWorkflowFailure`) wrapper. */
export function rootFailure(err: unknown): { message: string; type?: string } {
  const inner =
    (err instanceof ActivityFailure || err instanceof ChildWorkflowFailure) && err.cause ? err.cause : err;
  if (inner instanceof ApplicationFailure) {
    return { message: inner.message, ...(inner.type ? { type: inner.type } : {}) };
  }
  if (inner instanceof Error) return { message: inner.message, type: inner.name };
  return { message: String(inner) };
}

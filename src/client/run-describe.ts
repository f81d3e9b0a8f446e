import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure, TimeoutFailure, type LoadedDataConverter } from '@temporalio/common';
import {
  decodeFromPayloadsAtIndex,
  decodeOptionalFailureToOptionalError,
} from '@temporalio/common/lib/internal-non-workflow';
import { tsToDate } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { ATTEMPT_MARKER_TYPE, PIPELINE_FAILED } from '../workflows/failure-types';
import {
  PIPELINE_WORKFLOW_TYPE,
  type PipelineFailureDetails,
  type PipelineRunInput,
  type RedriveContext,
} from '../workflows/run-types';
import type { JobRun } from './run-types';
import { toRun } from './run-visibility';
import { RunNotFoundError, translateServiceError } from './errors';

/*
 * One run in detail, read from its event history. The history rather than the `progress` query: a query
 * on a closed run needs a worker to replay it (none may be running where `tflow` runs), and the progress
 * state has no attempts, errors or times of steps that failed; the history has all of them, for running
 * and closed runs alike, without a worker. Activity ids name the steps (step-options.ts): `<step>`,
 * `<map>[<i>]`, `<step>:compensate`, `onFailure`; temporal-flow's own activities (`tflow*`) are left out.
 */

/** What one activity of a run did, from its history events. */
export interface RunStep {
  /** The activity id: the step id, `<map>[<i>]` for a map item, `<step>:compensate` for a compensation. */
  id: string;
  /** The activity (type) it ran. */
  activity: string;
  /**
   * `scheduled`: waiting for its first attempt; `running`: an attempt is running; `retrying`: waiting for
   * its next attempt after a failed one (see `error`); then how it ended.
   */
  status: 'scheduled' | 'running' | 'retrying' | 'completed' | 'failed' | 'timed-out' | 'cancelled';
  /** Attempts made (the last started attempt); absent while the first one has not finished. */
  attempts?: number;
  scheduledAt: Date;
  closedAt?: Date;
  /** From scheduled to closed, retries included. */
  durationMs?: number;
  /** Message of the last failure (of the activity, or of its last attempt while it retries). */
  error?: string;
  /** `ApplicationFailure.type` of that failure, when it has one. */
  errorType?: string;
}

/** A run in detail: the visibility record plus its steps, compensations and failure. */
export interface RunDescription extends JobRun {
  /** Arguments of the run's first step (or of its redrive point). */
  args: unknown[];
  /** Steps in the order they were scheduled. */
  steps: RunStep[];
  /** Compensations in the order they ran (the reverse of completion). */
  compensations: RunStep[];
  /** Hooks the run called: the pipeline's `onFailure`, the job's `onError`. */
  hooks: RunStep[];
  /** A failed run's `PipelineFailed` details (what `tflow dead-letters redrive` uses). */
  failureDetails?: PipelineFailureDetails;
  /** Set when this run redrives an earlier one. */
  redriveOf?: RedriveContext;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

async function errorOf(
  converter: LoadedDataConverter,
  failure: temporal.api.failure.v1.IFailure | null | undefined,
): Promise<Pick<RunStep, 'error' | 'errorType'>> {
  if (!failure) return {};
  const err = await decodeOptionalFailureToOptionalError(converter, failure);
  // The step's own failure; a timeout's message says which timeout, its cause what the last attempt said.
  // The attempt interceptor's marker (a cause) is bookkeeping, never shown.
  const cause = err?.cause;
  if (err instanceof TimeoutFailure && isShown(cause)) {
    return { error: `${err.message}; last attempt: ${cause.message}` };
  }
  return {
    ...(err ? { error: err.message } : {}),
    ...(err instanceof ApplicationFailure && err.type ? { errorType: err.type } : {}),
  };
}

function isShown(err: unknown): err is Error {
  return err instanceof Error && !(err instanceof ApplicationFailure && err.type === ATTEMPT_MARKER_TYPE);
}

/** Reads the activities of a history into steps, keyed by their scheduled event id. */
async function stepsOf(
  events: HistoryEvent[],
  converter: LoadedDataConverter,
): Promise<Map<string, RunStep>> {
  const steps = new Map<string, RunStep>();
  const close = (id: unknown, e: HistoryEvent, status: RunStep['status']): RunStep | undefined => {
    const step = steps.get(String(id));
    if (!step) return undefined;
    step.status = status;
    step.closedAt = tsToDate(e.eventTime!);
    step.durationMs = step.closedAt.getTime() - step.scheduledAt.getTime();
    return step;
  };
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) {
      steps.set(String(e.eventId), {
        id: scheduled.activityId ?? '',
        activity: scheduled.activityType?.name ?? '',
        status: 'scheduled',
        scheduledAt: tsToDate(e.eventTime!),
      });
      continue;
    }
    const started = e.activityTaskStartedEventAttributes;
    if (started) {
      const step = steps.get(String(started.scheduledEventId));
      if (step) {
        step.status = 'running';
        step.attempts = started.attempt ?? 1;
        Object.assign(step, await errorOf(converter, started.lastFailure));
      }
      continue;
    }
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed) {
      const step = close(completed.scheduledEventId, e, 'completed');
      if (step) {
        delete step.error;
        delete step.errorType;
      }
      continue;
    }
    const failed = e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
    if (failed) {
      const step = close(
        failed.scheduledEventId,
        e,
        e.activityTaskFailedEventAttributes ? 'failed' : 'timed-out',
      );
      if (step) Object.assign(step, await errorOf(converter, failed.failure));
      continue;
    }
    const cancelled = e.activityTaskCanceledEventAttributes;
    if (cancelled) close(cancelled.scheduledEventId, e, 'cancelled');
  }
  return steps;
}

/** A still-running step's attempt and last failure, from the run's pending activities. */
async function addPending(
  steps: RunStep[],
  pending: temporal.api.workflow.v1.IPendingActivityInfo[],
  converter: LoadedDataConverter,
): Promise<void> {
  for (const p of pending) {
    const step = steps.find((s) => s.id === p.activityId && s.closedAt === undefined);
    if (!step) continue;
    if (p.attempt) step.attempts = p.attempt;
    if (p.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED) {
      step.status = 'running';
    } else if ((p.attempt ?? 1) > 1) {
      step.status = 'retrying';
    }
    Object.assign(step, await errorOf(converter, p.lastFailure));
  }
}

/** The `PipelineFailed` details of a failed run's last event. */
async function failureDetailsOf(
  events: HistoryEvent[],
  converter: LoadedDataConverter,
): Promise<PipelineFailureDetails | undefined> {
  const failure = events.at(-1)?.workflowExecutionFailedEventAttributes?.failure;
  if (!failure) return undefined;
  const err = await decodeOptionalFailureToOptionalError(converter, failure);
  return err instanceof ApplicationFailure && err.type === PIPELINE_FAILED
    ? (err.details?.[0] as PipelineFailureDetails | undefined)
    : undefined;
}

/**
 * A pipeline run in detail, from its history: steps with durations, attempts and errors, compensations,
 * hooks, and the failure of a failed run.
 *
 * @param runId a given run of the workflow id. @default its latest run
 * @throws RunNotFoundError when no such run exists; RedriveError is not involved (this is a read).
 */
export async function describeRun(
  client: Client,
  workflowId: string,
  runId?: string,
): Promise<RunDescription> {
  const converter = client.workflow.options.loadedDataConverter;
  try {
    const handle = client.workflow.getHandle(workflowId, runId);
    const description = await handle.describe();
    if (description.type !== PIPELINE_WORKFLOW_TYPE) {
      throw new RunNotFoundError(workflowId, { workflowType: description.type });
    }
    const history = await client.workflow.getHandle(workflowId, description.runId).fetchHistory();
    const events = history.events ?? [];
    const input = await decodeFromPayloadsAtIndex<PipelineRunInput>(
      converter,
      0,
      events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads,
    );
    const all = [...(await stepsOf(events, converter)).values()].filter(
      (s) => !s.activity.startsWith('tflow'),
    );
    await addPending(all, description.raw.pendingActivities ?? [], converter);
    const isHook = (s: RunStep) => s.id === 'onFailure' || /^\d+$/.test(s.id);
    const failureDetails = await failureDetailsOf(events, converter);
    const run = toRun(description);
    return {
      ...run,
      ...(failureDetails ? { failure: failureDetails.message } : {}),
      args: input.args,
      steps: all.filter((s) => !s.id.endsWith(':compensate') && !isHook(s)),
      compensations: all.filter((s) => s.id.endsWith(':compensate')),
      hooks: all.filter(isHook),
      ...(failureDetails ? { failureDetails } : {}),
      ...(input.redrive ? { redriveOf: input.redrive } : {}),
    };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new RunNotFoundError(workflowId, { cause: err });
    translateServiceError(err);
  }
}

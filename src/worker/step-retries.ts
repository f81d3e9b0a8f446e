import { defaultPayloadConverter } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { RUN_HEADER, type RunHeader } from '../workflows/idempotency/run-header';
import { PIPELINE_WORKFLOW_TYPE } from '../workflows/run-types';
import { schedulerActivities } from '../activities/scheduler-activities';
import { logEvent, TFLOW_EVENTS } from './run-events';

/** A step attempt that starts after an earlier attempt of the same step failed or timed out. */
export interface StepRetriedEvent {
  pipeline?: string;
  jobId?: string;
  workflowId: string;
  runId: string;
  /** Step id (the activity id: a map item's `<map id>[<index>]`). */
  step: string;
  /** The step's activity. */
  activity: string;
  /** The attempt starting now (2 for the first retry). */
  attempt: number;
  /** Nominal time of a scheduled run, ISO 8601. */
  nominalTime?: string;
}

/**
 * Reports each retry of a step when its attempt starts (attempt 2 and later): one `step.retried` log
 * line and `onRetried`. Activity attempts are not replayed, so each retry is reported once, by the worker
 * that runs it. Pipeline, job and nominal time come from the run's activity header (run-header.ts), absent
 * for steps scheduled by a bundle without {@link WORKFLOW_INTERCEPTOR_MODULES}.
 */
export function stepRetryInterceptor(
  onRetried: ((event: StepRetriedEvent) => void) | undefined,
): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      // Not async: it reports before the attempt and hands the attempt on (an async frame would add a
      // promise to every activity).
      execute(input, next) {
        const { info } = ctx;
        const run = info.workflowExecution;
        if (
          info.attempt > 1 &&
          run &&
          info.workflowType === PIPELINE_WORKFLOW_TYPE &&
          !(info.activityType in schedulerActivities)
        ) {
          const header = input.headers[RUN_HEADER];
          const r = header ? defaultPayloadConverter.fromPayload<RunHeader>(header) : undefined;
          const event: StepRetriedEvent = {
            ...(r?.pipeline ? { pipeline: r.pipeline } : {}),
            ...(r?.jobId ? { jobId: r.jobId } : {}),
            workflowId: run.workflowId,
            runId: run.runId,
            step: info.activityId,
            activity: info.activityType,
            attempt: info.attempt,
            ...(r?.nominalTime ? { nominalTime: r.nominalTime } : {}),
          };
          logEvent(TFLOW_EVENTS.stepRetried, {
            job: event.jobId,
            pipeline: event.pipeline,
            workflowId: event.workflowId,
            runId: event.runId,
            step: event.step,
            nominalTime: event.nominalTime,
            activity: event.activity,
            attempt: event.attempt,
          });
          onRetried?.(event);
        }
        return next(input);
      },
    },
  });
}

/*
 * Workflow interceptor module (registered by createWorker, or given to bundleWorkflowCode through
 * WORKFLOW_INTERCEPTOR_MODULES): puts the run's occurrence (see occurrence.ts) into a header of every
 * activity it schedules, so that a step can build a key that survives retries and redrives (a local
 * step also gets its step path, its `summary`, see step-options.ts, since its activity id is a number);
 * and the run's pipeline, job and nominal time (run-header.ts), so that the worker's log lines about a
 * step name them.
 *
 * Replay: a header is not part of what Temporal compares on replay (activity type and id are), so runs
 * recorded without it replay unchanged; the commands, their order and their ids are the same as before.
 */
import {
  defaultPayloadConverter,
  workflowInfo,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import { OCCURRENCE_HEADER, runOccurrence, STEP_PATH_HEADER } from './occurrence';
import { RUN_HEADER, type RunHeader } from './run-header';
import { PIPELINE_WORKFLOW_TYPE, type PipelineRunInput } from '../run-types';
import { SCHEDULED_START_TIME_ATTRIBUTE } from '../search-attributes';

export const interceptors: WorkflowInterceptorsFactory = () => {
  // One factory call per workflow execution: this closure is the run's own.
  let occurrence: string | undefined;
  /**
   * The occurrence header, when it says more than the activity knows: a run that stands for itself (not
   * scheduled, not a redrive) has its workflow id as occurrence, which every activity reads from its own
   * info (stepIdempotencyKey falls back to it, in every version), so it is not written: ~90 bytes of
   * history less per step (bench/run-bytes).
   */
  let occurrenceHeader: Record<string, ReturnType<typeof defaultPayloadConverter.toPayload>> = {};
  /** What every regular step's activity gets: the occurrence header (when needed) and the run header, encoded once per run. */
  let stepHeaders: Record<string, ReturnType<typeof defaultPayloadConverter.toPayload>> = {};
  return {
    inbound: [
      {
        execute(input, next) {
          const info = workflowInfo();
          if (info.workflowType === PIPELINE_WORKFLOW_TYPE) {
            const runInput = input.args[0] as PipelineRunInput | undefined;
            const nominal = info.typedSearchAttributes.get(SCHEDULED_START_TIME_ATTRIBUTE);
            occurrence = runOccurrence(runInput ?? {}, info.workflowId, nominal);
            occurrenceHeader =
              occurrence === info.workflowId
                ? {}
                : { [OCCURRENCE_HEADER]: defaultPayloadConverter.toPayload(occurrence) };
            const run: RunHeader | undefined = runInput?.spec
              ? {
                  pipeline: runInput.spec.name,
                  ...(runInput.job ? { jobId: runInput.job.jobId } : {}),
                  ...(nominal ? { nominalTime: nominal.toISOString() } : {}),
                }
              : undefined;
            stepHeaders = {
              ...occurrenceHeader,
              ...(run ? { [RUN_HEADER]: defaultPayloadConverter.toPayload(run) } : {}),
            };
          }
          return next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity(input, next) {
          if (occurrence === undefined) return next(input);
          return next({ ...input, headers: { ...input.headers, ...stepHeaders } });
        },
        scheduleLocalActivity(input, next) {
          if (occurrence === undefined) return next(input);
          // A local step named as its activity has no summary (step-options.ts): its path is the activity.
          const stepPath = input.options.summary ?? input.activityType;
          return next({
            ...input,
            headers: {
              ...input.headers,
              ...occurrenceHeader,
              [STEP_PATH_HEADER]: defaultPayloadConverter.toPayload(stepPath),
            },
          });
        },
      },
    ],
  };
};

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
  let run: RunHeader | undefined;
  return {
    inbound: [
      {
        execute(input, next) {
          const info = workflowInfo();
          if (info.workflowType === PIPELINE_WORKFLOW_TYPE) {
            const runInput = input.args[0] as PipelineRunInput | undefined;
            const nominal = info.typedSearchAttributes.get(SCHEDULED_START_TIME_ATTRIBUTE);
            occurrence = runOccurrence(runInput ?? {}, info.workflowId, nominal);
            if (runInput?.spec) {
              run = {
                pipeline: runInput.spec.name,
                ...(runInput.job ? { jobId: runInput.job.jobId } : {}),
                ...(nominal ? { nominalTime: nominal.toISOString() } : {}),
              };
            }
          }
          return next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity(input, next) {
          if (occurrence === undefined) return next(input);
          return next({
            ...input,
            headers: {
              ...input.headers,
              [OCCURRENCE_HEADER]: defaultPayloadConverter.toPayload(occurrence),
              ...(run ? { [RUN_HEADER]: defaultPayloadConverter.toPayload(run) } : {}),
            },
          });
        },
        scheduleLocalActivity(input, next) {
          if (occurrence === undefined) return next(input);
          const stepPath = input.options.summary;
          return next({
            ...input,
            headers: {
              ...input.headers,
              [OCCURRENCE_HEADER]: defaultPayloadConverter.toPayload(occurrence),
              ...(stepPath ? { [STEP_PATH_HEADER]: defaultPayloadConverter.toPayload(stepPath) } : {}),
            },
          });
        },
      },
    ],
  };
};

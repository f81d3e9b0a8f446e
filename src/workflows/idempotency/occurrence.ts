/*
 * The occurrence a pipeline run stands for: what stays the same on every retry of its steps and on every
 * redrive of it, and differs from one occurrence to the next. Pure (workflow-safe): the idempotency
 * interceptor computes it inside a run, `PipelineClient.redrive()` for the failed run it redrives.
 */
import type { PipelineRunInput } from '../run-types';

/**
 * Name of the activity header that carries the occurrence to each step (persisted in the commands of new
 * runs; never rename). Headers are not run through the payload codec: it holds ids and a time only.
 */
export const OCCURRENCE_HEADER = 'tflow-occurrence';

/**
 * Name of the header that carries the step path to a local step (a local activity's id is a sequence
 * number, not the step id). Persisted in the markers of new runs; never rename.
 */
export const STEP_PATH_HEADER = 'tflow-step';

/**
 * - a redriven run: the occurrence of the run it redrives (kept along a chain of redrives);
 * - a scheduled run: `<jobId>@<nominal time, ISO>` (Temporal's `TemporalScheduledStartTime`);
 * - any other run: its workflow id.
 */
export function runOccurrence(
  input: Pick<PipelineRunInput, 'job' | 'redrive'>,
  workflowId: string,
  nominalTime: Date | undefined,
): string {
  if (input.redrive) return input.redrive.occurrence ?? input.redrive.workflowId;
  if (input.job && nominalTime) return `${input.job.jobId}@${nominalTime.toISOString()}`;
  return workflowId;
}

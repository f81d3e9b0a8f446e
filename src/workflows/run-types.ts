import type { PipelineSpec } from '../pipeline/spec';

/*
 * Shapes persisted in workflow histories: the run input, the result and the failure details. Add optional
 * fields only; renaming or removing one breaks the replay of recorded runs.
 */

/** Workflow type name of the interpreter. Persisted in every history and schedule: never rename. */
export const PIPELINE_WORKFLOW_TYPE = 'pipelineWorkflow';

/** ApplicationFailure type of a run that failed for good. */
export const PIPELINE_FAILED = 'PipelineFailed';

/** Name of the query that returns {@link PipelineProgress}. */
export const PROGRESS_QUERY = 'progress';

/** What a scheduled run knows of its job, set by the scheduler in the schedule's action. */
export interface RunJobContext {
  jobId: string;
  /** Runs starting later than this after their nominal time end as skipped (misfire). */
  misfireGraceMs?: number;
  /** Concurrency bound enforced by the per-job semaphore when above 1. */
  maxInstances?: number;
  /** Name of an activity the run calls with a {@link JobErrorEvent} when it fails for good. */
  onError?: string;
  /** A one-off job: the run that used the schedule's last action deletes the schedule when it ends. */
  once?: boolean;
}

/** What the `onError` activity of a job receives when a scheduled run fails for good. */
export interface JobErrorEvent {
  jobId: string;
  pipeline: string;
  workflowId: string;
  runId: string;
  /** Message of the failure. */
  message: string;
  /** Failure type, e.g. `PipelineFailed`. */
  type?: string;
  /** Details of the failure (for `PipelineFailed`: {@link PipelineFailureDetails}). */
  details?: unknown;
}

/** Input of {@link PIPELINE_WORKFLOW_TYPE}. */
export interface PipelineRunInput {
  spec: PipelineSpec;
  /** Arguments of the first step. */
  args: unknown[];
  job?: RunJobContext;
}

export interface StepRecord {
  id: string;
  durationMs: number;
}

/** Result of a run that did not fail. */
export interface PipelineRunResult {
  status: 'completed' | 'skipped';
  /** Output of the last step (completed runs). */
  output?: unknown;
  /** Why a run was skipped: `misfire` (started too late) or `max-instances` (too many running). */
  skipReason?: 'misfire' | 'max-instances';
  steps: StepRecord[];
}

export interface PipelineProgress {
  pipeline: string;
  status: 'running' | 'compensating' | 'completed' | 'failed' | 'skipped';
  currentStep: string | null;
  completed: StepRecord[];
}

/** Details of the `PipelineFailed` ApplicationFailure: enough to understand and redrive the run. */
export interface PipelineFailureDetails {
  pipeline: string;
  failedStep: string;
  /** Attempts made, when known (a step that exhausted its retry policy). */
  attempts?: number;
  /** Input the failed step received; redrive starts again from here. */
  input: unknown;
  message: string;
  completedSteps: string[];
}

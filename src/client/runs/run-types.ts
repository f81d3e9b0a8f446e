import type { RunSkipReason } from '../../workflows/outcomes';

/*
 * The runs read model: a pipeline run as Temporal visibility reports it, whoever started it (a job's
 * schedule or PipelineClient).
 */

/** Status of a run; `skipped` is a completed run that skipped its steps (misfire, max instances). */
export type JobRunStatus =
  | 'running'
  | 'completed'
  | 'failed'
  | 'skipped'
  | 'cancelled'
  | 'terminated'
  | 'timed-out'
  | 'continued-as-new';

/** One pipeline run (of a job, or started by PipelineClient), from Temporal visibility. */
export interface JobRun {
  workflowId: string;
  runId: string;
  /** Name of the pipeline (the `TflowPipeline` search attribute; absent on runs of foreign schedules). */
  pipeline?: string;
  /** Id of the job whose schedule started the run (absent on runs started otherwise). */
  jobId?: string;
  status: JobRunStatus;
  /** Why the run skipped its steps (status `skipped`). */
  skipReason?: RunSkipReason;
  /** Nominal time (`TemporalScheduledStartTime`): when the run was due. */
  scheduledAt?: Date;
  /**
   * A late run of a coalescing job (overlap SKIP): the latest missed occurrence it stood for, from which
   * its misfire grace was measured. Absent when the run stood for its own nominal time.
   */
  standsFor?: Date;
  /**
   * A run of a job that does not coalesce and has a misfire grace, a second or more late at its first
   * workflow task: the instant it was judged against the grace. When it was queued behind its predecessor
   * (overlap BUFFER_ALL or BUFFER_ONE), the instant it could have started had Temporal started each queued
   * run at once, plus its own wait for a worker; else its first workflow task. Absent on other runs
   * (judged at their first workflow task).
   */
  judgedAt?: Date;
  startedAt: Date;
  closedAt?: Date;
  durationMs?: number;
  /** Failure message of a failed run. */
  failure?: string;
}

/*
 * What a step's worker is told about the run that scheduled it, for its log lines (`step.retried`):
 * Temporal's activity info names the workflow and the activity, not the pipeline, job or nominal time.
 * Pure (workflow-safe).
 */

/**
 * Name of the activity header that carries {@link RunHeader} (persisted in the commands of new runs; never
 * rename). Headers are not run through the payload codec: it holds names, ids and a time only.
 */
export const RUN_HEADER = 'tflow-run';

/** The run a step belongs to, as its activity header carries it. */
export interface RunHeader {
  pipeline: string;
  jobId?: string;
  /** Nominal time of a scheduled run, ISO 8601. */
  nominalTime?: string;
}

/*
 * Names of the span attributes temporal-flow adds to Temporal's OpenTelemetry spans (docs/tracing.md).
 * Not stored in Temporal, but dashboards and trace queries name them: never rename one.
 */

/** Span attributes of a run (`RunWorkflow:pipelineWorkflow`) and of a step attempt (`RunActivity:<step>`). */
export const TRACE_ATTRIBUTES = {
  pipeline: 'tflow.pipeline',
  jobId: 'tflow.job_id',
  /** Nominal time of a scheduled run, ISO 8601. */
  nominalTime: 'tflow.nominal_time',
  /** The occurrence the run stands for (see `stepIdempotencyKey()`). */
  occurrence: 'tflow.occurrence',
  /** Step id (a map item's `<map id>[<index>]`). */
  step: 'tflow.step',
  /** The step's attempt, 1 for the first. */
  attempt: 'tflow.attempt',
} as const;

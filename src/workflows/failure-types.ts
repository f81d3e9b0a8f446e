/*
 * The `ApplicationFailure.type` strings temporal-flow's workflows (and the worker's activity interceptor)
 * put on failures: one place to read them from, for clients that match a failure by its type. Persisted in
 * workflow histories: never rename. Workflow-safe (no imports).
 */

/** A run that failed for good; its details are a `PipelineFailureDetails`. */
export const PIPELINE_FAILED = 'PipelineFailed';

/** A run whose input the interpreter cannot read (an unknown spec version, an unknown step). */
export const PIPELINE_INPUT_INVALID = 'PipelineInputInvalid';

/** A map node whose input is not an array. */
export const MAP_INPUT_NOT_ARRAY = 'PipelineMapInputNotArray';

/** A `waitFor` step whose timeout passed without the signal (`onTimeout: 'fail'`). */
export const WAIT_TIMED_OUT = 'PipelineWaitTimedOut';

/**
 * The marker the worker's activity interceptor puts in the cause chain of a step's failure, carrying the
 * attempt number.
 */
export const ATTEMPT_MARKER_TYPE = 'TflowAttempt';

/*
 * The occurrence header and the run header behind stepIdempotencyKey() (a workflow interceptor module). Uses
 * run/ and the role root.
 */
export { interceptors } from './idempotency-interceptor';
export { OCCURRENCE_HEADER, runOccurrence, STEP_PATH_HEADER } from './occurrence';
export { RUN_HEADER, type RunHeader } from './run-header';

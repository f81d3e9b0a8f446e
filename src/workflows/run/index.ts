/*
 * The interpreter of a pipeline run: nodes, waits, child and chained runs, saga, progress, the run's end.
 * Uses the role root only.
 */
export { runChildPipeline, startChainedRuns } from './child-runs';
export { progressDetails, showProgress } from './current-details';
export { interpretPipeline, progressQuery } from './interpreter';
export { ProgressTracker } from './progress';
export { rateLimitedTaskQueue } from './rate-limit';
export { type RunContext, SignalMailbox, StepFailed } from './run-context';
export {
  nominalStartIso,
  reportRunFinished,
  reportRunStarted,
  type RunEnd,
  scheduleLagMs,
} from './run-finished';
export { runNode } from './run-nodes';
export { type Compensable, Saga } from './saga';
export {
  type ActivityFields,
  activityOptions,
  attemptsOf,
  DEFAULT_START_TO_CLOSE_MS,
  localActivityOptions,
  rootFailure,
  stepActivity,
  toRetryPolicy,
  waitForCancelledSteps,
} from './step-options';
export { runSleep, runWaitFor } from './wait-nodes';

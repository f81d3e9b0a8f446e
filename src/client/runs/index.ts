/*
 * Runs (client side): PipelineClient, starting, listing, describing and signalling pipeline runs; the runs
 * read model. Uses dead-letters/ and the role root; never jobs/.
 */
export {
  PipelineClient,
  type PipelineClientOptions,
  type PipelineRunHandle,
  type RedriveOptions,
  RunAlreadyExistsError,
  type StartPipelineOptions,
} from './pipeline-client';
export { describeRun, type RunDescription, type RunStep } from './run-describe';
export { listRuns, RUN_STATUSES, type RunFilter, runQuery } from './run-list';
export { runMetadata, type RunMetadata } from './run-metadata';
export { runProgress, RunSignalError, signalRun } from './run-signal';
export { checkKnownSteps, concurrencyKeyOf, runStartOptions } from './run-start';
export { flowKeyOf, sendEvent, type SendEventOptions, type SendReceipt } from './run-send';
export {
  listFlowControls,
  type FlowControlListing,
  type FlowControlSummary,
  type FlowListOptions,
  type UnreadableFlowControl,
} from './flow-list';
export { type JobRun, type JobRunStatus } from './run-types';
export { failureOf, newestWithFailures, toRun } from './run-visibility';

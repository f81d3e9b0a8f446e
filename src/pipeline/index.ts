export { pipeline, Pipeline, toPipelineSpec, DEFAULT_MAP_CONCURRENCY } from './builder';
export type {
  BranchStep,
  MapOptions,
  ParallelOptions,
  PipelineLike,
  PipelineOptions,
  RemoteSteps,
} from './builder';
export type { RetryOptions, StepOptions } from './compile-step';
export { WHEN_FULL } from './concurrency';
export type { PipelineConcurrency, WhenFull } from './concurrency';
export { compileFlowControl, FLOW_CONTROL_KINDS } from './flow-control';
export type {
  BatchOptions,
  DebounceOptions,
  DedupeOptions,
  FlowControlSpec,
  FlowKey,
  PipelineFlowControl,
  ThrottleOptions,
} from './flow-control';
export type { ChildPipelineOptions, ThenOptions, WaitForOptions } from './compile-flow-nodes';
export { WORKFLOW_ID_PLACEHOLDERS } from './workflow-id';
export type { WorkflowIdPlaceholder } from './workflow-id';
export { LocalStepOptionError, PipelineSpecError, UnknownStepError } from './errors';
export {
  activitiesOf,
  activityNodesOf,
  activityUsesOf,
  remoteTaskQueuesOf,
  parsePipelineSpec,
  pipelineSpecSchema,
  PIPELINE_SPEC_VERSION,
} from './spec';
export type {
  ActivityUse,
  ChainSpec,
  ChildPipelineSpec,
  MapSpec,
  NodeSpec,
  ParallelSpec,
  PipelineSpec,
  RetrySpec,
  SleepSpec,
  StepSpec,
  WaitForSpec,
} from './spec';

export { pipeline, Pipeline, toPipelineSpec, DEFAULT_MAP_CONCURRENCY } from './builder';
export type { BranchStep, MapOptions, ParallelOptions, PipelineLike, PipelineOptions } from './builder';
export type { RetryOptions, StepOptions } from './compile-step';
export { LocalStepOptionError, PipelineSpecError, UnknownStepError } from './errors';
export {
  activitiesOf,
  activityNodesOf,
  parsePipelineSpec,
  pipelineSpecSchema,
  PIPELINE_SPEC_VERSION,
} from './spec';
export type { MapSpec, NodeSpec, ParallelSpec, PipelineSpec, RetrySpec, StepSpec } from './spec';

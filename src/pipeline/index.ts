export { pipeline, Pipeline, toPipelineSpec } from './builder';
export type { PipelineLike, PipelineOptions, RetryOptions, StepOptions } from './builder';
export { parseDuration } from './duration';
export type { DurationInput } from './duration';
export { PipelineSpecError, UnknownStepError } from './errors';
export { parsePipelineSpec, pipelineSpecSchema, PIPELINE_SPEC_VERSION } from './spec';
export type { PipelineSpec, RetrySpec, StepSpec } from './spec';

// Entry point bundled by the worker: export workflow functions only (and types).
export { pipelineWorkflow, progressQuery } from './pipeline-workflow';
export type {
  PipelineFailureDetails,
  PipelineProgress,
  PipelineRunInput,
  PipelineRunResult,
} from './run-types';

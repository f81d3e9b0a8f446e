// Entry point bundled by the worker: export workflow functions only (and types).
// `pipelineWorkflow` is the interpreter wrapped with the job guards (misfire, maxInstances, onError).
export { pipelineWorkflow } from './pipeline-workflow';
export { progressQuery } from './run/interpreter';
export { jobSemaphoreWorkflow } from './semaphore/semaphore-workflow';
export { jobWatchdogWorkflow } from './alerts/watchdog-workflow';
export { tflowAlertEvaluatorWorkflow } from './alerts/evaluator-workflow';
export { tflowAlertDeliveryWorkflow } from './alerts/delivery-workflow';
export { deadLetterWorkflow } from './dead-letters/dead-letter-workflow';
export { tflowFlowControlWorkflow } from './flow-control/flow-control-workflow';
export type {
  JobErrorEvent,
  PipelineFailureDetails,
  PipelineProgress,
  PipelineRunInput,
  PipelineRunResult,
} from './run-types';

/*
 * Flow control of events into pipeline runs: debounce, batch, throttle, dedupe (one workflow per pipeline and key).
 */
export {
  FLOW_CONTROL_WORKFLOW_TYPE,
  FLOW_STARTED_AT_PATCH,
  flowControlWorkflowId,
  pendingQuery,
  sendEventUpdate,
  type FlowControlInput,
  type FlowEvent,
  type FlowPending,
  type FlowReceipt,
  type FlowState,
  type HeldEvent,
  type SeenEvent,
} from './flow-defs';
export { dueAt, idleFor, nextRun } from './flow-buffer';
export { tflowFlowControlWorkflow } from './flow-control-workflow';

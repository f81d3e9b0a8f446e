/*
 * Durable alerts: the run's alerts, the delivery activity's proxy and the per-job watchdog (dead-man switch,
 * missed/skipped counts). Uses run/ and the role root.
 */
export { ALERT_ATTEMPTS, raiseAlert } from './raise-alert';
export { alertIfLate, alertSkipped, reportSuccess } from './run-alerts';
export {
  DEFAULT_WATCHDOG_TASK_QUEUE,
  JOB_WATCHDOG_WORKFLOW_TYPE,
  reconfigureSignal,
  type RunSucceeded,
  runSucceededSignal,
  type ScheduleCounts,
  type ScheduleWatch,
  WATCHDOG_OBEYS_SCHEDULE_PATCH,
  type WatchdogActivities,
  type WatchdogConfig,
  type WatchdogState,
  watchdogStateQuery,
  watchdogWorkflowId,
} from './watchdog-defs';
export { jobWatchdogWorkflow } from './watchdog-workflow';
export {
  ALERT_DELIVERY_WORKFLOW_TYPE,
  ALERT_EVALUATOR_WORKFLOW_TYPE,
  alertCountsChangedSignal,
  alertDeliveryWorkflowId,
  alertEvaluatorWorkflowId,
  type AlertCause,
  type AlertDeliveryInput,
  type AlertEvaluatorActivities,
  type AlertEvaluatorCarry,
  type AlertEvaluatorInput,
} from './evaluator-defs';
export { tflowAlertEvaluatorWorkflow } from './evaluator-workflow';
export { tflowAlertDeliveryWorkflow } from './delivery-workflow';

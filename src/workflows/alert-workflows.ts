/*
 * The alert worker's workflows and nothing else (the entry of its own bundle: alert-workflow-bundle.js):
 * the shared alert evaluator, the delivery of one alert, and the per-job watchdog of the release before
 * (retired by the evaluator, replayed until then). Without the interpreter, the bundle is a fraction of the
 * pipeline workers' and so is the alert worker's memory. Names and code are those of src/workflows/index.ts.
 */
export { tflowAlertEvaluatorWorkflow } from './alerts/evaluator-workflow';
export { tflowAlertDeliveryWorkflow } from './alerts/delivery-workflow';
export { jobWatchdogWorkflow } from './alerts/watchdog-workflow';

import type { AlertDeliveryInput } from './evaluator-defs';
import { raiseAlert } from './raise-alert';

/**
 * One alert raised by the evaluator, delivered with the watchdog's persistence (retried for up to an
 * hour). Its workflow id names the alert's cause (alertDeliveryWorkflowId), so a cause is delivered at most
 * once however often an evaluator (or a rebuilt one) raises it; its history is the record of the alert.
 */
export async function tflowAlertDeliveryWorkflow(input: AlertDeliveryInput): Promise<void> {
  if (input.deliveredBefore) return;
  await raiseAlert(input.target, input.event, 'watchdog');
}

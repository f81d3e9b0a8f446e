import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { CompiledAlertTarget, JobAlertEvent } from '../../../workflows/alert-types';
import {
  ALERT_DELIVERY_WORKFLOW_TYPE,
  alertDeliveryWorkflowId,
  type AlertCause,
  type AlertDeliveryInput,
} from '../../../workflows/alerts/evaluator-defs';

/**
 * Raises one alert: starts its delivery workflow under the id of its cause. Temporal refuses a second
 * workflow of that id (running or closed, within the namespace's retention), so a cause raised again, by
 * this evaluator after a failed call or by one rebuilt after a crash, is delivered once. Returns whether
 * this call raised it (false: it was raised before).
 */
export async function raiseOnce(
  client: Client,
  taskQueue: string,
  cause: AlertCause,
  target: CompiledAlertTarget,
  event: JobAlertEvent,
  deliveredBefore = false,
): Promise<boolean> {
  const input: AlertDeliveryInput = { target, event, ...(deliveredBefore ? { deliveredBefore } : {}) };
  try {
    await client.workflow.start(ALERT_DELIVERY_WORKFLOW_TYPE, {
      workflowId: alertDeliveryWorkflowId(cause),
      taskQueue,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      // The delivery retries for up to an hour; the margin covers a worker that is away meanwhile.
      workflowExecutionTimeout: '2h',
    });
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}

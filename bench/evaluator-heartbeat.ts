/*
 * The alert evaluator's last heartbeat (what it watches, its waves), read from its pending activity, for
 * the benches that wait until it has read every job (jobs-at-rest, alert-storm).
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { AlertEvaluatorCarry } from '../src/workflows/alerts/evaluator-defs';

/** The last heartbeat of the evaluator workflow `workflowId`; undefined before its first, or when none runs. */
export async function evaluatorHeartbeat(
  client: Client,
  workflowId: string,
): Promise<AlertEvaluatorCarry | undefined> {
  try {
    const { raw } = await client.workflow.getHandle(workflowId).describe();
    const payloads = raw.pendingActivities?.[0]?.heartbeatDetails?.payloads;
    if (!payloads?.length) return undefined;
    return await decodeFromPayloadsAtIndex<AlertEvaluatorCarry>(
      client.options.loadedDataConverter,
      0,
      payloads,
    );
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

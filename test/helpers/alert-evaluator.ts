import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import {
  ALERT_DELIVERY_WORKFLOW_TYPE,
  ALERT_EVALUATOR_WORKFLOW_TYPE,
  alertEvaluatorWorkflowId,
  type AlertEvaluatorCarry,
} from '../../src/workflows/alerts/evaluator-defs';
import { waitFor } from './wait-for';

/** The evaluator's last heartbeat (its waves, jobs, open silent periods), or undefined before the first. */
export async function evaluatorHeartbeat(
  client: Client,
  taskQueue: string,
): Promise<AlertEvaluatorCarry | undefined> {
  const { raw } = await client.workflow.getHandle(alertEvaluatorWorkflowId(taskQueue)).describe();
  const payloads = raw.pendingActivities?.[0]?.heartbeatDetails?.payloads;
  if (!payloads || payloads.length === 0) return undefined;
  return decodeFromPayloadsAtIndex<AlertEvaluatorCarry>(client.options.loadedDataConverter, 0, payloads);
}

/**
 * Waits until the evaluator of `taskQueue` has ended `waves` waves after this call: whatever was true when
 * this was called has been evaluated since (a condition for "no alert came", instead of a blind sleep).
 * Waves are counted from the heartbeats' `waves` and `waveAt` (when the last wave ended). The SDK sends a
 * heartbeat at most every 80% of the heartbeat timeout, so one heartbeat can stand for several waves, some
 * of them ended before this call: of the first heartbeat whose last wave ended after the call, only that
 * wave is counted; after it, every wave a heartbeat adds (a heartbeat of another activity attempt: one).
 */
export async function waitForWaves(
  client: Client,
  taskQueue: string,
  waves = 2,
  timeoutMs = 60_000,
): Promise<void> {
  const calledAt = Date.now();
  let seen = 0;
  let last: { waveAt: number; waves: number } | undefined;
  await waitFor(
    `${waves} waves of the alert evaluator of ${taskQueue}`,
    async () => {
      const hb = await evaluatorHeartbeat(client, taskQueue);
      const waveAt = hb?.waveAt ? Date.parse(hb.waveAt) : undefined;
      if (waveAt !== undefined && waveAt > calledAt && waveAt !== last?.waveAt) {
        const count = hb!.waves ?? 0;
        seen += last && count > last.waves ? count - last.waves : 1;
        last = { waveAt, waves: count };
      }
      return seen >= waves ? true : undefined;
    },
    timeoutMs,
  );
}

/** The types of the workflows that ran on `taskQueue` (running or closed), with how many of each. */
export async function workflowTypesOn(client: Client, taskQueue: string): Promise<Record<string, number>> {
  const types: Record<string, number> = {};
  for await (const wf of client.workflow.list({ query: `TaskQueue = '${taskQueue}'` })) {
    types[wf.type] = (types[wf.type] ?? 0) + 1;
  }
  return types;
}

export { ALERT_DELIVERY_WORKFLOW_TYPE, ALERT_EVALUATOR_WORKFLOW_TYPE };

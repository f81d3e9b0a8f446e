import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  JOB_WATCHDOG_WORKFLOW_TYPE,
  reconfigureSignal,
  watchdogWorkflowId,
  type WatchdogState,
} from '../workflows/job-watchdog-defs';

/*
 * The client side of a job's watchdog (src/workflows/job-watchdog-workflow.ts). The watchdog reads the
 * job's alerts from the schedule itself whenever it is told the job changed, so writers never send it a
 * configuration that a concurrent write could make stale: the last read wins, and it follows the last
 * write. It ends by itself once the job is removed or needs no watchdog.
 */

/**
 * Tells the job's watchdog that the job changed. `start`: the job needs a watchdog (one is started when
 * none runs, with signal-with-start: one per job id); otherwise only a running one is told (it then ends).
 */
export async function reconfigureWatchdog(
  client: Client,
  jobId: string,
  start: { taskQueue: string } | undefined,
): Promise<void> {
  const workflowId = watchdogWorkflowId(jobId);
  if (start) {
    const initial: WatchdogState = { jobId, lastSuccessAt: new Date().toISOString(), silent: false };
    await client.workflow.signalWithStart(JOB_WATCHDOG_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: start.taskQueue,
      args: [initial],
      signal: reconfigureSignal,
    });
    return;
  }
  try {
    await client.workflow.getHandle(workflowId).signal(reconfigureSignal);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
}

import { WorkflowNotFoundError, type Client, type ScheduleDescription } from '@temporalio/client';
import {
  countsChangedSignal,
  JOB_WATCHDOG_WORKFLOW_TYPE,
  reconfigureSignal,
  watchdogWorkflowId,
  type WatchdogState,
} from '../../workflows/alerts/watchdog-defs';
import { compileAlerts } from './store/job-alerts';
import { decodeJobRecord } from './store/job-record';

/*
 * The client side of a job's watchdog (src/workflows/alerts/watchdog-workflow.ts). The schedule's record is
 * the job's one source of truth: the watchdog reads the job's alerts from the schedule itself whenever it
 * is told the job changed, and again before each alert it raises, so writers never send it a
 * configuration that a concurrent write could make stale, and a write whose signal never came (the
 * writer died, the server went away) is obeyed all the same at the watchdog's next wake-up. The one thing
 * a watchdog cannot do for itself is start: every write of a job that needs one ends with an idempotent
 * signal-with-start (one watchdog per job id), and a job left without one (its writer died between the
 * two calls) is found and repaired by `tflow doctor --repair` (client/jobs/job-repair.ts) or by its next write.
 */

/** Whether the job, as this description of its schedule holds it, needs a watchdog. */
export function needsWatchdog(d: ScheduleDescription | undefined): boolean {
  const alerts = d && decodeJobRecord(undefined, d.action.memo)?.alerts;
  return alerts !== undefined && compileAlerts(alerts).watchdog !== undefined;
}

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

/**
 * Tells the job's watchdog, if one runs, that a trigger or backfill was just sent: an overlap skip of it is
 * counted by the server at once, and the watchdog reads the counts within a grace instead of after the
 * next nominal time. Best effort: a watchdog that misses it reads the counts then.
 */
export async function countsChanged(client: Client, jobId: string): Promise<void> {
  try {
    await client.workflow.getHandle(watchdogWorkflowId(jobId)).signal(countsChangedSignal);
  } catch {
    // None runs (no onMissed), or the signal was lost: the trigger itself landed, which is what was asked.
  }
}

import type { Backfill, Client } from '@temporalio/client';
import { fromWireError, translateScheduleError, translateServiceError, withRollbackError } from '../errors';
import type { JobWrite } from './store/build-updates';
import type { CompiledAlerts } from './store/job-alerts';
import type { PreparedJob } from './job-compile';
import { reconfigureWatchdog } from './job-watchdog';

/*
 * The calls that follow a job's write, decided from what the write wrote (JobWrite, PreparedJob), never
 * from a describe of it: the backfill of a one-off due now, the signal to the job's watchdog, and a new
 * job's watchdog start with its rollback. Each is one call to Temporal.
 */

/**
 * A write's last steps: runs a due one-off at once (a backfill of its one second), then tells the job's
 * watchdog (see {@link tellWatchdog}).
 */
export async function afterJobWrite(
  client: Client,
  jobId: string,
  write: JobWrite,
  watchdog: { taskQueue: string; alertsChanged: boolean },
): Promise<void> {
  if (write.dueRun) await backfillDue(client, jobId, write.dueRun);
  await tellWatchdog(client, jobId, write.alerts, watchdog);
}

/**
 * Tells the job's watchdog, with start when the job needs one (idempotent: one watchdog per job id, so
 * repeating it is harmless, and it restarts a watchdog that a writer killed between its two calls never
 * started). `alertsChanged`: also tell a running one when the job needs none any more (it ends).
 */
async function tellWatchdog(
  client: Client,
  jobId: string,
  alerts: CompiledAlerts,
  { taskQueue, alertsChanged }: { taskQueue: string; alertsChanged: boolean },
): Promise<void> {
  const needed = alerts.watchdog !== undefined;
  if (!needed && !alertsChanged) return;
  try {
    await reconfigureWatchdog(client, jobId, needed ? { taskQueue } : undefined);
  } catch (err) {
    translateServiceError(err);
  }
}

async function backfillDue(client: Client, jobId: string, dueRun: Backfill): Promise<void> {
  try {
    await client.schedule.getHandle(jobId).backfill([dueRun]);
  } catch (err) {
    translateScheduleError(err, jobId);
  }
}

/**
 * Starts a new job's watchdog, when its alerts need one. A new job whose watchdog could not start is not
 * left half-created: its schedule is deleted (then `onRolledBack`), and the start's error thrown. When
 * the delete fails too (the server is gone), the start's error is the one thrown, the delete's rides
 * along, and the job is left without its watchdog until its next write or `tflow doctor --repair`.
 */
export async function startWatchdogOrRollBack(
  client: Client,
  job: PreparedJob,
  taskQueue: string,
  onRolledBack: () => void,
): Promise<void> {
  if (!job.alerts.watchdog) return;
  try {
    await reconfigureWatchdog(client, job.jobId, { taskQueue });
  } catch (err) {
    const thrown = fromWireError(err) ?? err;
    try {
      await client.schedule.getHandle(job.jobId).delete();
      onRolledBack();
    } catch (rollbackErr) {
      throw withRollbackError(thrown, fromWireError(rollbackErr) ?? rollbackErr);
    }
    throw thrown;
  }
}

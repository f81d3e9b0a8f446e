import type { Backfill, Client } from '@temporalio/client';
import {
  fromWireError,
  JobConflictError,
  JobNotFoundError,
  translateScheduleError,
  translateServiceError,
  withRollbackError,
} from '../errors';
import { updateJob } from './store/send-update';
import { finishedUpdate, type JobWrite } from './store/build-updates';
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
 * left half-created: its schedule is deleted (then `onRolledBack`), and the start's error thrown. The
 * delete takes no conflict token, so it is guarded as a spent one-off's clean-up is: the job is first
 * marked as being removed with the token of a description showing it as created (never updated since),
 * so a write that got in between (another writer's, who now owns the job as they left it) makes the
 * rollback stop there and leave the job, never delete it with that write. When the rollback fails (the
 * server is gone), the start's error is the one thrown, the rollback's rides along, and the job is left
 * without its watchdog until its next write or `tflow doctor --repair`.
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
    let marked: boolean;
    try {
      marked = await markCreatedForRemoval(client, job.jobId);
      if (marked) {
        await client.schedule.getHandle(job.jobId).delete();
        onRolledBack();
      }
    } catch (rollbackErr) {
      throw withRollbackError(thrown, fromWireError(rollbackErr) ?? rollbackErr);
    }
    throw thrown;
  }
}

/** A job another write changed since its create: the rollback leaves it to that writer. */
class ChangedSinceCreate extends Error {}

/**
 * Marks a job just created as being removed, with the conflict token of a description that shows it as
 * created; false when a write got in first (the job changed since, or is gone), and nothing is marked.
 */
async function markCreatedForRemoval(client: Client, jobId: string): Promise<boolean> {
  try {
    await updateJob(
      client,
      jobId,
      (d) => {
        if (d.info.lastUpdatedAt !== undefined) throw new ChangedSinceCreate();
        const { update } = finishedUpdate(d);
        return {
          update: {
            ...update,
            state: { ...update.state, note: 'its watchdog could not start: being removed' },
          },
        };
      },
      1,
    );
    return true;
  } catch (err) {
    if (
      err instanceof ChangedSinceCreate ||
      err instanceof JobConflictError ||
      err instanceof JobNotFoundError
    )
      return false;
    throw err;
  }
}

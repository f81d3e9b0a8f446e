import type { Backfill, Client } from '@temporalio/client';
import { translateScheduleError } from '../errors';
import type { JobWrite } from './store/build-updates';

/*
 * The call that follows a job's write, decided from what the write wrote (JobWrite), never from a
 * describe of it: the backfill of a one-off due now. (A job's alerts need no call: the alert evaluator
 * reads them from the schedule.)
 */

/** A write's last step: runs a due one-off at once (a backfill of its one second). */
export async function afterJobWrite(client: Client, jobId: string, write: JobWrite): Promise<void> {
  if (write.dueRun) await backfillDue(client, jobId, write.dueRun);
}

async function backfillDue(client: Client, jobId: string, dueRun: Backfill): Promise<void> {
  try {
    await client.schedule.getHandle(jobId).backfill([dueRun]);
  } catch (err) {
    translateScheduleError(err, jobId);
  }
}

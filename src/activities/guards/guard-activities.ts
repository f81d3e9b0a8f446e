import { Context } from '@temporalio/activity';
import { ScheduleNotFoundError } from '@temporalio/client';
import { JobNotFoundError } from '../../client/errors';
import { updateJob } from '../../client/jobs/store/send-update';
import { finishedUpdate } from '../../client/jobs/store/build-updates';
import { renewJobHorizon } from '../../client/jobs/store/job-renewal';
import type { JobGuardActivities } from '../../workflows/guards/guard-defs';
import { tflowJudgedAt, tflowLatestOccurrence } from './guard-lookups';

/*
 * The activities a scheduled run's guards call on its job: the clean-up of a spent one-off and the
 * renewal of the job's horizon, with the guards' lookups (guard-lookups.ts). Persisted names: never rename
 * one. They use the worker's own client (Context.current().client).
 */

/** Thrown by the clean-up's update builder when the one-off is not spent: nothing to write. */
class NotSpent extends Error {}

/**
 * Deletes a one-off job once its single action is used, so that it leaves listJobs(). A manual trigger
 * does not use the action, so a triggered run leaves the job in place. The delete carries no conflict
 * token, so the job is first marked finished with one (see finishedUpdate): an edit racing the clean-up
 * either lands first (and the job, no longer spent, is kept) or is refused, never deleted unseen.
 */
export async function tflowFinishOneOff(jobId: string): Promise<boolean> {
  const { client } = Context.current();
  try {
    await updateJob(client, jobId, (d) => {
      if (d.state.remainingActions !== 0 || d.info.runningActions.length > 1) throw new NotSpent();
      return finishedUpdate(d);
    });
    // The alert evaluator finds it gone at its next read, and raises nothing for it.
    await client.schedule.getHandle(jobId).delete();
    return true;
  } catch (err) {
    if (err instanceof NotSpent || err instanceof JobNotFoundError || err instanceof ScheduleNotFoundError) {
      return false;
    }
    throw err;
  }
}

/**
 * Renews the job's horizon (holiday exclusions, weekday corrections, DST policy) when it ends within a
 * year: asked for by a scheduled run that saw it so (workflows/guards/horizon-renewal.ts). Idempotent: a renewal
 * that finds the job renewed already (by a run racing this one) writes nothing. See {@link renewJobHorizon}.
 *
 * @returns the horizon's new end (UTC ISO), or null when nothing was written.
 */
export async function tflowRenewHorizon(jobId: string): Promise<string | null> {
  const renewal = await renewJobHorizon(Context.current().client, jobId);
  return renewal.renewed ? (renewal.horizonEnd ?? null) : null;
}

/** The guards' activities, as schedulerActivities registers them. */
export const jobGuardActivities = {
  tflowFinishOneOff,
  tflowLatestOccurrence,
  tflowJudgedAt,
  tflowRenewHorizon,
} satisfies JobGuardActivities;

import type { Client, ScheduleDescription, ScheduleUpdateOptions } from '@temporalio/client';
import { horizonRenewalDue } from '../workflows/horizon-renewal';
import type { PipelineRunInput } from '../workflows/run-types';
import { JobNotFoundError } from './errors';
import { updateJob } from './job-update';
import { modifyUpdate } from './job-write';

/*
 * The renewal of a job's horizon (holiday exclusions, weekday corrections, DST policy: see
 * schedule/horizon-end.ts), asked for by the job's own runs (workflows/horizon-renewal.ts) and made by
 * the built-in activity tflowRenewHorizon. It is modifyJob with no changes, written through the one
 * conflict-token path (job-update.ts).
 */

/** Thrown by {@link renewUpdate} when the job needs no renewal (any more): nothing to write. */
class RenewalNotDue extends Error {}

/**
 * The renewal as an update: modifyJob with no changes (the trigger compiled again from `now`, everything
 * else kept), built only while the job's current schedule still has a horizon ending within the
 * threshold. So of renewals that race, the first to land writes and the others, re-reading it, stop.
 *
 * @throws RenewalNotDue when the job has no horizon, or one that ends later than the threshold.
 */
function renewUpdate(jobId: string, d: ScheduleDescription, now: Date): ScheduleUpdateOptions {
  const input = d.action.args?.[0] as PipelineRunInput | undefined;
  if (!horizonRenewalDue(input?.job?.horizonEnd, now.getTime())) throw new RenewalNotDue();
  return modifyUpdate(jobId, d, { alerts: {}, policies: {} }, now);
}

/** What a renewal did: the horizon's new end, or why nothing was written. */
export type HorizonRenewal =
  { renewed: true; horizonEnd: string | undefined } | { renewed: false; reason: 'not-due' | 'not-found' };

/**
 * Renews the job's horizon from `now` when it ends within the threshold; does nothing when it does not (a
 * concurrent renewal landed first, or the job was written since) or the job is gone.
 *
 * @throws ForeignScheduleError for a schedule temporal-flow did not create; JobConflictError when every
 *   attempt lost to concurrent writes.
 */
export async function renewJobHorizon(
  client: Client,
  jobId: string,
  now = new Date(),
): Promise<HorizonRenewal> {
  try {
    const d = await updateJob(client, jobId, (current) => renewUpdate(jobId, current, now));
    const input = d.action.args?.[0] as PipelineRunInput | undefined;
    return { renewed: true, horizonEnd: input?.job?.horizonEnd };
  } catch (err) {
    if (err instanceof RenewalNotDue) return { renewed: false, reason: 'not-due' };
    if (err instanceof JobNotFoundError) return { renewed: false, reason: 'not-found' };
    throw err;
  }
}

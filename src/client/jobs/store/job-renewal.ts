import type { Client, ScheduleDescription } from '@temporalio/client';
import { horizonRenewalDue } from '../../../workflows/guards/horizon-renewal';
import type { PipelineRunInput } from '../../../workflows/run-types';
import { JobNotFoundError } from '../../errors';
import { updateJob } from './send-update';
import { renewalUpdate, type RenewalWrite } from './build-updates';

/*
 * The renewal of a job's horizon (holiday exclusions, weekday corrections, DST policy: see
 * schedule/horizon-end.ts), asked for by the job's own runs (workflows/guards/horizon-renewal.ts) and made by
 * the built-in activity tflowRenewHorizon. It is modifyJob with no changes, written through the one
 * conflict-token path (send-update.ts).
 */

/** Thrown by {@link renewUpdate} when there is nothing to write, and why. */
class NoRenewal extends Error {
  constructor(readonly reason: 'not-due' | 'edited-outside') {
    super(reason);
  }
}

/**
 * The renewal as an update: modifyJob with no changes (the trigger compiled again from `now`, everything
 * else kept), built only while the job's current schedule still has a horizon ending within the
 * threshold. So of renewals that race, the first to land writes and the others, re-reading it, stop.
 *
 * @throws NoRenewal when the job has no horizon, one that ends later than the threshold, or a spec
 *   edited outside temporal-flow.
 */
function renewUpdate(jobId: string, d: ScheduleDescription, now: Date): RenewalWrite {
  const input = d.action.args?.[0] as PipelineRunInput | undefined;
  if (!horizonRenewalDue(input?.job?.horizonEnd, now.getTime())) throw new NoRenewal('not-due');
  const update = renewalUpdate(jobId, d, now);
  if (!update) throw new NoRenewal('edited-outside');
  return update;
}

/** What a renewal did: the horizon's new end, or why nothing was written. */
export type HorizonRenewal =
  | { renewed: true; horizonEnd: string | undefined }
  | { renewed: false; reason: 'not-due' | 'edited-outside' | 'not-found' };

/**
 * Renews the job's horizon from `now` when it ends within the threshold; does nothing when it does not (a
 * concurrent renewal landed first, or the job was written since), when its spec was edited outside
 * temporal-flow, or when the job is gone.
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
    const write = await updateJob(client, jobId, (current) => renewUpdate(jobId, current, now));
    return { renewed: true, horizonEnd: write.horizonEnd };
  } catch (err) {
    if (err instanceof NoRenewal) return { renewed: false, reason: err.reason };
    if (err instanceof JobNotFoundError) return { renewed: false, reason: 'not-found' };
    throw err;
  }
}

import { Context } from '@temporalio/activity';
import { ScheduleNotFoundError, WithStartWorkflowOperation, WorkflowNotFoundError } from '@temporalio/client';
import { JobNotFoundError } from '../client/errors';
import { updateJob } from '../client/job-update';
import { finishedUpdate } from '../client/job-write';
import { renewJobHorizon } from '../client/job-renewal';
import {
  acquireSlotUpdate,
  queueForSlotUpdate,
  JOB_SEMAPHORE_WORKFLOW_TYPE,
  semaphoreWorkflowId,
  type SemaphoreState,
  type SlotHolder,
  type SemaphoreActivities,
  type SlotRequest,
} from '../workflows/job-semaphore-defs';
import type {
  JobGuardActivities,
  JudgedAtRequest,
  LatestOccurrenceRequest,
} from '../workflows/job-guard-defs';
import type { DeadLetterActivities } from '../workflows/dead-letter-defs';
import { reconfigureWatchdog } from '../client/job-watchdog';
import { queuedJudgedAt } from './judged-at';
import { latestOccurrence } from './latest-occurrence';
import { tflowFileDeadLetter } from './dead-letter-activities';

/*
 * Built-in activities of the scheduler, registered on every worker by createWorker(). Their names are
 * persisted in histories: never rename one. They use the worker's own client (Context.current().client).
 */

/**
 * Asks the job's semaphore for a slot, starting the semaphore workflow if it is not running
 * (update-with-start, so there is one per job id and no race between the first runs).
 */
export async function tflowAcquireSlot(req: SlotRequest & { jobId: string }): Promise<boolean> {
  const ctx = Context.current();
  const { jobId, ...request } = req;
  const startWorkflowOperation = new WithStartWorkflowOperation(JOB_SEMAPHORE_WORKFLOW_TYPE, {
    workflowId: semaphoreWorkflowId(jobId),
    taskQueue: ctx.info.taskQueue,
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [{ holders: [] } satisfies SemaphoreState],
  });
  return ctx.client.workflow.executeUpdateWithStart(acquireSlotUpdate, {
    args: [request],
    startWorkflowOperation,
  });
}

/**
 * Asks the semaphore of a concurrency key for a slot, or a place in its queue (update-with-start, like
 * {@link tflowAcquireSlot}): `queued` means the semaphore signals the run when its turn comes.
 */
export async function tflowQueueForSlot(
  req: SlotRequest & { semaphoreId: string },
): Promise<'granted' | 'queued'> {
  const ctx = Context.current();
  const { semaphoreId, ...request } = req;
  const startWorkflowOperation = new WithStartWorkflowOperation(JOB_SEMAPHORE_WORKFLOW_TYPE, {
    workflowId: semaphoreId,
    taskQueue: ctx.info.taskQueue,
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [{ holders: [] } satisfies SemaphoreState],
  });
  return ctx.client.workflow.executeUpdateWithStart(queueForSlotUpdate, {
    args: [request],
    startWorkflowOperation,
  });
}

/** Which of these runs are still running (a run that was terminated never released its slot). */
export async function tflowLiveHolders(holders: SlotHolder[]): Promise<string[]> {
  const { client } = Context.current();
  const alive: string[] = [];
  for (const h of holders) {
    try {
      const d = await client.workflow.getHandle(h.workflowId, h.runId).describe();
      if (d.status.name === 'RUNNING') alive.push(`${h.workflowId}/${h.runId}`);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  return alive;
}

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
    await client.schedule.getHandle(jobId).delete();
    // Its watchdog, if any, ends instead of calling the spent job silent.
    await reconfigureWatchdog(client, jobId, undefined);
    return true;
  } catch (err) {
    if (err instanceof NotSpent || err instanceof JobNotFoundError || err instanceof ScheduleNotFoundError) {
      return false;
    }
    throw err;
  }
}

/**
 * The latest occurrence a late run of a coalescing job stands for (ISO 8601), or null when it stands for
 * its own nominal time. See {@link latestOccurrence}.
 */
export async function tflowLatestOccurrence(req: LatestOccurrenceRequest): Promise<string | null> {
  const latest = await latestOccurrence(Context.current().client, req);
  return latest ? latest.toISOString() : null;
}

/**
 * The instant a late buffered run queued behind its predecessor is judged at (ISO 8601), or null when it
 * is judged at its own first workflow task. See {@link queuedJudgedAt}.
 */
export async function tflowJudgedAt(req: JudgedAtRequest): Promise<string | null> {
  const judgedAt = await queuedJudgedAt(Context.current().client, req);
  return judgedAt ? judgedAt.toISOString() : null;
}

/**
 * Renews the job's horizon (holiday exclusions, weekday corrections, DST policy) when it ends within a
 * year: asked for by a scheduled run that saw it so (workflows/horizon-renewal.ts). Idempotent: a renewal
 * that finds the job renewed already (by a run racing this one) writes nothing. See {@link renewJobHorizon}.
 *
 * @returns the horizon's new end (UTC ISO), or null when nothing was written.
 */
export async function tflowRenewHorizon(jobId: string): Promise<string | null> {
  const renewal = await renewJobHorizon(Context.current().client, jobId);
  return renewal.renewed ? (renewal.horizonEnd ?? null) : null;
}

/** The built-in activities, as createWorker() registers them. */
export const schedulerActivities = {
  tflowAcquireSlot,
  tflowQueueForSlot,
  tflowLiveHolders,
  tflowFinishOneOff,
  tflowLatestOccurrence,
  tflowJudgedAt,
  tflowFileDeadLetter,
  tflowRenewHorizon,
} satisfies SemaphoreActivities & JobGuardActivities & DeadLetterActivities;

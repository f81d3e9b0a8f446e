import { Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, WorkflowNotFoundError } from '@temporalio/client';
import {
  acquireSlotUpdate,
  queueForSlotUpdate,
  SEMAPHORE_WORKFLOW_TYPE,
  semaphoreWorkflowId,
  type SemaphoreActivities,
  type SemaphoreState,
  type SlotAnswer,
  type SlotHolder,
  type SlotRequest,
} from '../../workflows/semaphore/semaphore-defs';

/*
 * The semaphore's activities: a slot of a job's semaphore or of a concurrency key's, and the check of its
 * holders. Persisted names: never rename one. They use the worker's own client (Context.current().client).
 */

/**
 * Asks the job's semaphore for a slot, starting the semaphore workflow if it is not running
 * (update-with-start, so there is one per job id and no race between the first runs).
 */
export async function tflowAcquireSlot(req: SlotRequest & { jobId: string }): Promise<boolean> {
  const ctx = Context.current();
  const { jobId, ...request } = req;
  const startWorkflowOperation = new WithStartWorkflowOperation(SEMAPHORE_WORKFLOW_TYPE, {
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
 * {@link tflowAcquireSlot}): `queued` means the semaphore signals the run when its turn comes. `refused`
 * (full, `whenFull: 'skip' | 'cancel-newest'`): for `cancel-newest` the run is asked to cancel before the
 * answer returns, so that it ends cancelled, by the server's record, and the request is durable.
 */
export async function tflowQueueForSlot(req: SlotRequest & { semaphoreId: string }): Promise<SlotAnswer> {
  const ctx = Context.current();
  const { semaphoreId, ...request } = req;
  const startWorkflowOperation = new WithStartWorkflowOperation(SEMAPHORE_WORKFLOW_TYPE, {
    workflowId: semaphoreId,
    taskQueue: ctx.info.taskQueue,
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [{ holders: [] } satisfies SemaphoreState],
  });
  const answer = await ctx.client.workflow.executeUpdateWithStart(queueForSlotUpdate, {
    args: [request],
    startWorkflowOperation,
  });
  if (answer === 'refused' && req.whenFull === 'cancel-newest') {
    await ctx.client.workflow.getHandle(req.workflowId, req.runId).cancel();
  }
  return answer;
}

/** Runs described at once by {@link tflowLiveHolders}: a long line is checked in seconds, not one by one. */
const LIVENESS_DESCRIBES_AT_ONCE = 10;

/** Which of these runs are still running (a run that was terminated never released its slot). */
export async function tflowLiveHolders(holders: SlotHolder[]): Promise<string[]> {
  const { client } = Context.current();
  const isAlive = async (h: SlotHolder) => {
    try {
      const d = await client.workflow.getHandle(h.workflowId, h.runId).describe();
      return d.status.name === 'RUNNING';
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      return false;
    }
  };
  const alive: string[] = [];
  for (let i = 0; i < holders.length; i += LIVENESS_DESCRIBES_AT_ONCE) {
    const batch = holders.slice(i, i + LIVENESS_DESCRIBES_AT_ONCE);
    const answers = await Promise.all(batch.map(isAlive));
    batch.forEach((h, j) => answers[j] && alive.push(`${h.workflowId}/${h.runId}`));
  }
  return alive;
}

/** The semaphore's activities, as schedulerActivities registers them. */
export const slotActivities = {
  tflowAcquireSlot,
  tflowQueueForSlot,
  tflowLiveHolders,
} satisfies SemaphoreActivities;

import { Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, WorkflowNotFoundError } from '@temporalio/client';
import {
  acquireSlotUpdate,
  queueForSlotUpdate,
  JOB_SEMAPHORE_WORKFLOW_TYPE,
  semaphoreWorkflowId,
  type SemaphoreActivities,
  type SemaphoreState,
  type SlotHolder,
  type SlotRequest,
} from '../workflows/job-semaphore-defs';

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

/** The semaphore's activities, as schedulerActivities registers them. */
export const slotActivities = {
  tflowAcquireSlot,
  tflowQueueForSlot,
  tflowLiveHolders,
} satisfies SemaphoreActivities;

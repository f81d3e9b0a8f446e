import { Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, WorkflowNotFoundError } from '@temporalio/client';
import {
  acquireSlotUpdate,
  queueForSlotUpdate,
  SEMAPHORE_TASK_QUEUE,
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
 * A semaphore is started on SEMAPHORE_TASK_QUEUE, never on the asking run's queue: runs of one pipeline
 * or job from several queues share it, and it must be served whichever of their workers is left.
 */

/**
 * Runs an ask under a gRPC deadline just short of the attempt's start-to-close timeout: an update to a
 * semaphore that does not answer (no worker polls its queue yet) ends with the attempt, which is retried,
 * instead of polling on in the worker after the server has timed the attempt out.
 */
function withinAttempt<T>(ask: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const budget = ctx.info.startToCloseTimeoutMs;
  if (!(budget > 0)) return ask();
  return ctx.client.withDeadline(Date.now() + Math.max(budget - 1_000, budget / 2), ask);
}

/**
 * Asks the job's semaphore for a slot, starting the semaphore workflow on `queue` if it is not running
 * (update-with-start, so there is one per job id and no race between the first runs).
 */
async function acquireSlot(queue: string, req: SlotRequest & { jobId: string }): Promise<boolean> {
  const ctx = Context.current();
  const { jobId, ...request } = req;
  const startWorkflowOperation = new WithStartWorkflowOperation(SEMAPHORE_WORKFLOW_TYPE, {
    workflowId: semaphoreWorkflowId(jobId),
    taskQueue: queue,
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [{ holders: [] } satisfies SemaphoreState],
  });
  return withinAttempt(() =>
    ctx.client.workflow.executeUpdateWithStart(acquireSlotUpdate, {
      args: [{ ...request, queue }],
      startWorkflowOperation,
    }),
  );
}

/**
 * Asks the semaphore of a concurrency key for a slot, or a place in its queue (update-with-start on `queue`,
 * like {@link acquireSlot}): `queued` means the semaphore signals the run when its turn comes. `refused`
 * (full, `whenFull: 'skip' | 'cancel-newest'`): for `cancel-newest` the run is asked to cancel before the
 * answer returns, so that it ends cancelled, by the server's record, and the request is durable.
 */
async function queueForSlot(queue: string, req: SlotRequest & { semaphoreId: string }): Promise<SlotAnswer> {
  const ctx = Context.current();
  const { semaphoreId, ...request } = req;
  const startWorkflowOperation = new WithStartWorkflowOperation(SEMAPHORE_WORKFLOW_TYPE, {
    workflowId: semaphoreId,
    taskQueue: queue,
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [{ holders: [] } satisfies SemaphoreState],
  });
  const answer = await withinAttempt(() =>
    ctx.client.workflow.executeUpdateWithStart(queueForSlotUpdate, {
      args: [{ ...request, queue }],
      startWorkflowOperation,
    }),
  );
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

/**
 * The semaphore's activities of a worker whose semaphores run on `queue` (createWorker's
 * `semaphoreTaskQueue`): its runs start and ask their semaphores there.
 */
export function slotActivitiesOn(queue: string): SemaphoreActivities {
  return {
    tflowAcquireSlot: (req) => acquireSlot(queue, req),
    tflowQueueForSlot: (req) => queueForSlot(queue, req),
    tflowLiveHolders,
  };
}

/** The semaphore's activities on {@link SEMAPHORE_TASK_QUEUE}, as schedulerActivities registers them. */
export const slotActivities = slotActivitiesOn(SEMAPHORE_TASK_QUEUE);

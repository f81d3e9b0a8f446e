import { temporal } from '@temporalio/proto';
import {
  CODEC_SEMAPHORE_TASK_QUEUE,
  SEMAPHORE_TASK_QUEUE,
  SEMAPHORE_WORKFLOW_TYPE,
} from '../workflows/semaphore/semaphore-defs';
import { livePollers, type DoctorContext } from './doctor-checks';
import type { DoctorCheck } from './doctor-types';

/*
 * The `semaphores` check of `tflow doctor`: the semaphores of a pipeline's `concurrencyKey` (with or
 * without `maxConcurrentTotal`) and of a job's `maxInstances > 1` are workflows on their own task queue
 * (`tflow-semaphores`, `tflow-semaphores-codec` for workers with a codec, or the workers'
 * `semaphoreTaskQueue`), which every createWorker polls beside its own. With no worker polling it, those
 * runs wait for their slot for good, while every other run goes on: nothing else shows it.
 */

/** Running semaphores listed at most: their queues are what is checked, and a few ids are named. */
const LISTED_AT_MOST = 1000;
/** Semaphore ids named in a finding. */
const NAMED = 5;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;

/** The semaphore queue the workers use by default: the codec one when the doctor was given the codec. */
export function expectedSemaphoreQueue(opts: { semaphoreTaskQueue?: string; codec: boolean }): string {
  return opts.semaphoreTaskQueue ?? (opts.codec ? CODEC_SEMAPHORE_TASK_QUEUE : SEMAPHORE_TASK_QUEUE);
}

/**
 * Fails when a running semaphore's task queue has no worker polling it (its runs wait for good), naming
 * the queue and the semaphores; warns when nothing polls the expected semaphore queue (keyed runs and
 * `maxInstances` jobs would wait); ok otherwise.
 */
export async function checkSemaphores(ctx: DoctorContext, expectedQueue: string): Promise<DoctorCheck> {
  const { connection, namespace } = ctx;
  try {
    // queue -> the ids of the semaphores running there
    const running = new Map<string, string[]>();
    let listed = 0;
    const query = `WorkflowType = '${SEMAPHORE_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'`;
    for await (const wf of ctx.client().workflow.list({ query, pageSize: 200 })) {
      if (!running.has(wf.taskQueue)) running.set(wf.taskQueue, []);
      running.get(wf.taskQueue)!.push(wf.workflowId);
      if (++listed >= LISTED_AT_MOST) break;
    }
    const queues = [...new Set([expectedQueue, ...running.keys()])];
    const pollers = new Map(
      await Promise.all(
        queues.map(
          async (q) =>
            [
              q,
              await livePollers(
                connection,
                namespace,
                q,
                temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
              ),
            ] as const,
        ),
      ),
    );
    const unserved = [...running].filter(([q]) => pollers.get(q)!.length === 0);
    const startIt = (q: string) =>
      q === SEMAPHORE_TASK_QUEUE || q === CODEC_SEMAPHORE_TASK_QUEUE
        ? `start a worker with createWorker (each polls its semaphore queue beside its own: "${SEMAPHORE_TASK_QUEUE}", or "${CODEC_SEMAPHORE_TASK_QUEUE}" when given a codec)`
        : `start a worker with createWorker({ semaphoreTaskQueue: '${q}', ... })`;
    if (unserved.length > 0) {
      const found = unserved.map(([q, ids]) => {
        const named =
          ids.slice(0, NAMED).join(', ') + (ids.length > NAMED ? `, and ${ids.length - NAMED} more` : '');
        return `${ids.length} semaphore${ids.length === 1 ? '' : 's'} on task queue "${q}" (${named})`;
      });
      return {
        id: 'semaphores',
        status: 'fail',
        summary: `no worker polled the task queue of ${found.join('; ')} in the last 2 minutes: runs of those concurrency keys and jobs (maxInstances) wait for a slot until one does`,
        fix: `${unserved.map(([q]) => startIt(q)).join('; ')}; a worker made with the SDK's own Worker.create, or by a temporal-flow from before semaphores had their own queue, does not poll it`,
      };
    }
    const expected = [...new Set(pollers.get(expectedQueue))];
    if (expected.length === 0) {
      return {
        id: 'semaphores',
        status: 'warn',
        summary: `no worker polled the semaphore task queue "${expectedQueue}" in the last 2 minutes, and no semaphore runs: the first run of a pipeline with concurrencyKey, or of a job with maxInstances > 1, will wait for its slot until one does`,
        fix: `${startIt(expectedQueue)}; if your workers set semaphoreTaskQueue (or a codec), pass that queue with --semaphore-task-queue`,
      };
    }
    const others = [...running.keys()].filter((q) => q !== expectedQueue);
    return {
      id: 'semaphores',
      status: 'ok',
      summary:
        `${expected.length} worker${expected.length === 1 ? '' : 's'} polling the semaphore task queue "${expectedQueue}"; ` +
        `${listed}${listed >= LISTED_AT_MOST ? '+' : ''} semaphore${listed === 1 ? '' : 's'} running` +
        (others.length > 0 ? `, also on ${others.map((q) => `"${q}"`).join(', ')} (polled too)` : ''),
    };
  } catch (err) {
    return {
      id: 'semaphores',
      status: 'unknown',
      summary: `cannot check the semaphores' task queues: ${message(err)}`,
    };
  }
}

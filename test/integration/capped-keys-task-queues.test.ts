import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Worker } from '@temporalio/worker';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { createWorker } from '../../src/worker/create-worker';
import {
  concurrencyTotalSemaphoreId,
  holdersQuery,
  queueForSlotUpdate,
  SEMAPHORE_TASK_QUEUE,
  SEMAPHORE_WORKFLOW_TYPE,
  waitingQuery,
  type SemaphoreState,
} from '../../src/workflows/semaphore/semaphore-defs';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * "No waiter left behind" across worker fleets: runs of one capped pipeline come from two task queues,
 * and the worker of the queue whose run started the pipeline's semaphore is gone by the time the other
 * queue's runs ask it. Before SEMAPHORE_TASK_QUEUE, the semaphore ran on that first queue and the other
 * queue's runs waited for good.
 */

const PER_KEY = 1;
const TOTAL = 2;
const STEP_MS = 300;

/** Steps of this file's runs, in this process: how many hold a slot now, in all and per key. */
let now = 0;
let most = 0;
const nowOfKey = new Map<string, number>();
let mostOfAKey = 0;
const steps = {
  async hold(key: string, label: string) {
    now++;
    nowOfKey.set(key, (nowOfKey.get(key) ?? 0) + 1);
    most = Math.max(most, now);
    mostOfAKey = Math.max(mostOfAKey, nowOfKey.get(key)!);
    await new Promise((r) => setTimeout(r, STEP_MS));
    now--;
    nowOfKey.set(key, nowOfKey.get(key)! - 1);
    return label;
  },
};

const capped = (name: string) =>
  pipeline(name, {
    steps,
    concurrencyKey: ([key]) => String(key),
    maxConcurrent: PER_KEY,
    maxConcurrentTotal: TOTAL,
    // A broken test fails instead of hanging.
    timeout: '3m',
  }).step('hold');

let t: TestContext;
const running = new Map<Worker, Promise<void>>();

async function startWorker(taskQueue: string): Promise<Worker> {
  const worker = await createWorker({
    connection: t.nativeConnection,
    namespace: t.namespace,
    taskQueue,
    steps,
    workflowBundle: { codePath: inject('workflowBundlePath') },
  });
  running.set(worker, worker.run());
  return worker;
}

async function stopWorker(worker: Worker): Promise<void> {
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await running.get(worker);
}

beforeAll(async () => {
  t = await connectTest('capped-queues');
});
afterAll(async () => {
  for (const worker of running.keys()) await stopWorker(worker);
  await t?.close();
});

/** The task queue of the semaphore's current run. */
async function semaphoreQueue(name: string): Promise<string> {
  return (await t.client.workflow.getHandle(concurrencyTotalSemaphoreId(name)).describe()).taskQueue;
}

describe('capped keys across task queues', () => {
  it(
    "serves the runs of a second task queue once the worker of the queue that started the pipeline's semaphore is stopped",
    { timeout: 240_000 },
    async () => {
      const name = t.uid('capped-queues');
      const queueA = t.taskQueue;
      const queueB = `${t.taskQueue}-b`;
      const first = await startWorker(queueA);
      const onA = new PipelineClient(t.client, { taskQueue: queueA, steps });
      const opener = await onA.start(capped(name), ['k0', 'a0']);
      expect((await opener.result()).status).toBe('completed');
      // The semaphore outlives the run (it waits minutes for the next): queue B's runs ask it.
      await stopWorker(first);

      await startWorker(queueB);
      const onB = new PipelineClient(t.client, { taskQueue: queueB, steps });
      most = mostOfAKey = 0;
      const handles = await Promise.all(
        Array.from({ length: 6 }, (_, i) => onB.start(capped(name), [`k${i % 3}`, `b${i}`])),
      );
      const semaphore = t.client.workflow.getHandle(concurrencyTotalSemaphoreId(name));
      const ended = new Set<string>();
      for (const h of handles) void h.result().finally(() => ended.add(h.workflowId));
      try {
        await waitFor(
          'every run of queue B to end',
          async () => (ended.size === 6 ? true : undefined),
          120_000,
        );
      } catch (err) {
        const d = await semaphore.describe();
        throw new Error(
          `${(err as Error).message}: ${ended.size} of 6 ended; the semaphore runs on ${d.taskQueue} (queue A: ${queueA})`,
          { cause: err },
        );
      }
      for (const h of handles) expect((await h.result()).status).toBe('completed');
      expect(await semaphoreQueue(name)).toBe(SEMAPHORE_TASK_QUEUE);
      expect(most).toBe(TOTAL);
      expect(mostOfAKey).toBe(PER_KEY);
      expect(await semaphore.query(waitingQuery)).toEqual([]);
      expect(await semaphore.query(holdersQuery)).toEqual([]);
    },
  );

  it(
    "moves a semaphore an older worker started on its own queue to the asking worker's semaphore queue, holders and line kept",
    { timeout: 120_000 },
    async () => {
      const name = t.uid('capped-moved');
      const queueA = `${t.taskQueue}-old`;
      const holder = { workflowId: `${name}-holder`, runId: 'r1', key: 'k' };
      const waiter = { workflowId: `${name}-waiter`, runId: 'r2', key: 'k', max: 1, total: 2 };
      // What a worker from before SEMAPHORE_TASK_QUEUE started: the semaphore on the asking run's queue.
      const semaphore = await t.client.workflow.start(SEMAPHORE_WORKFLOW_TYPE, {
        workflowId: concurrencyTotalSemaphoreId(name),
        taskQueue: queueA,
        args: [{ holders: [holder], waiting: [waiter] } satisfies SemaphoreState],
        workflowExecutionTimeout: '5m',
      });
      const worker = await startWorker(queueA);
      try {
        // Today's ask names the asking worker's semaphore queue.
        const asker = { workflowId: `${name}-asker`, runId: 'r3', key: 'k2', max: 1, total: 2 };
        const answer = await semaphore.executeUpdate(queueForSlotUpdate, {
          args: [{ ...asker, queue: SEMAPHORE_TASK_QUEUE }],
        });
        expect(answer).toBe('granted');
        await waitFor(
          `the semaphore to continue on ${SEMAPHORE_TASK_QUEUE}`,
          async () => ((await semaphoreQueue(name)) === SEMAPHORE_TASK_QUEUE ? true : undefined),
          60_000,
        );
        const moved = t.client.workflow.getHandle(concurrencyTotalSemaphoreId(name));
        expect(await moved.query(holdersQuery)).toEqual([
          holder,
          { workflowId: asker.workflowId, runId: 'r3', key: 'k2' },
        ]);
        expect(await moved.query(waitingQuery)).toEqual([
          { workflowId: waiter.workflowId, runId: waiter.runId, key: waiter.key },
        ]);
        await moved.terminate('test over');
      } finally {
        await stopWorker(worker);
      }
    },
  );
});

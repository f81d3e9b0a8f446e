import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { createWorker } from '../../src/worker/create-worker';
import { concurrencyTotalSemaphoreId } from '../../src/workflows/semaphore/semaphore-defs';
import { semaphoreDiagnosis } from '../fixtures/capped-log';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * A semaphore whose liveness check outlasts the workflow task (its 10 s timeout; the SDK heartbeats the
 * task at 8 s) replays. Every workflow task is replayed here (no workflow cache), and the check is slowed
 * to 9 s by an activity interceptor, as a long line on a loaded worker makes it. With the check as a local
 * activity (SEMAPHORE_LOCAL_CHECK_PATCH), the runs' grants and update answers made while it ran were
 * replayed in another order than the history's, every later task failed with "[TMPRL1100] Nondeterminism
 * error: Signal external WF machine does not handle this event: ... TimerCanceled", and the runs waited for
 * good (24 of 40 ended in 120 s in the script this test was made from; capped-keys-kill stalled so under
 * load). Behind SEMAPHORE_CHECK_ACTIVITY_PATCH the check is a regular activity: every run ends, no task fails.
 */

const RUNS = 40;
const KEYS = 6;
const CHECK_MS = 9_000;

const steps = {
  async hold(_key: string, ms: number) {
    await new Promise((r) => setTimeout(r, ms));
    return 'held';
  },
};
const capped = (name: string) =>
  pipeline(name, {
    steps,
    concurrencyKey: ([key]) => String(key),
    maxConcurrent: 2,
    maxConcurrentTotal: 5,
    timeout: '5m',
  }).step('hold');

let t: TestContext;
let worker: Worker;
let running: Promise<void>;
let checks = 0;

beforeAll(async () => {
  t = await connectTest('semaphore-slow-check');
  worker = await createWorker({
    connection: t.nativeConnection,
    namespace: t.namespace,
    taskQueue: t.taskQueue,
    // A semaphore queue of its own: no other test file's worker (with a cache) takes its tasks.
    semaphoreTaskQueue: `${t.taskQueue}-semaphores`,
    steps,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    workerOptions: {
      maxCachedWorkflows: 0,
      interceptors: {
        activity: [
          () => ({
            inbound: {
              async execute(input, next) {
                if (Context.current().info.activityType === 'tflowLiveHolders') {
                  checks++;
                  await new Promise((r) => setTimeout(r, CHECK_MS));
                }
                return next(input);
              },
            },
          }),
        ],
      },
    },
  });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await t?.close();
});

describe('a semaphore whose liveness check outlasts its workflow task', () => {
  it(
    `replays: ${RUNS} runs over ${KEYS} keys (2 per key, 5 in all) all end, and no workflow task of the semaphore fails`,
    { timeout: 240_000 },
    async () => {
      const p = capped(`slow-check-${randomUUID()}`);
      const client = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
      const handles = await Promise.all(
        Array.from({ length: RUNS }, (_, i) => client.start(p, [`k${i % KEYS}`, 400])),
      );
      const semaphoreId = concurrencyTotalSemaphoreId(p.name);
      let ended = 0;
      void Promise.all(handles.map((h) => h.result().then(() => ended++)));
      try {
        await waitFor('every run to end', async () => (ended === RUNS ? true : undefined), 150_000);
      } catch (err) {
        throw new Error(
          `${(err as Error).message}: ${ended} of ${RUNS} ended; ${await semaphoreDiagnosis(t.client, semaphoreId)}`,
          { cause: err },
        );
      }
      const events = (await t.client.workflow.getHandle(semaphoreId).fetchHistory()).events ?? [];
      const failed = events.filter((e) => e.workflowTaskFailedEventAttributes);
      console.log(
        `${RUNS} runs ended; ${checks} liveness checks of ${CHECK_MS} ms; semaphore history ${events.length} events, ${failed.length} workflow tasks failed`,
      );
      // The check did outlast a workflow task (else this proves nothing).
      expect(checks).toBeGreaterThan(0);
      expect(failed.map((e) => e.workflowTaskFailedEventAttributes!.failure?.message)).toEqual([]);
    },
  );
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from '@temporalio/worker';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { createWatchdogWorker } from '../../src/worker/watchdog-worker';
import { startAlertHook, type AlertHook } from '../helpers/alert-hook';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * The alert worker as createWatchdogWorker makes it by default: no workflow bundle given, so from source it
 * bundles src/workflows/alert-workflows.ts (from the build it loads dist/alert-workflow-bundle.js), the
 * alert workflows only, on one workflow thread. Its evaluator pages a job no worker runs.
 */
let t: TestContext;
let hook: AlertHook;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  hook = await startAlertHook();
  t = await connectTest('alert-bundle');
  worker = await createWatchdogWorker({
    connection: t.nativeConnection,
    namespace: t.namespace,
    taskQueue: `${t.taskQueue}-alerts`,
    evaluator: { waveMs: 1_000, heartbeatTimeoutMs: 3_000 },
  });
  running = worker.run();
}, 120_000);
afterAll(async () => {
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running;
  await t?.close();
  await hook?.close();
});

describe('the alert worker with its own bundle', () => {
  it('runs the evaluator and delivers a silent alert for a job no worker runs', async () => {
    const steps = { async work() {} };
    const scheduler = new PipelineScheduler(t.client, {
      taskQueue: `${t.taskQueue}-nobody`,
      steps,
      watchdogTaskQueue: `${t.taskQueue}-alerts`,
    });
    const jobId = t.uid('silent');
    await scheduler.scheduleInterval(pipeline('alert-bundle-work', { steps }).step('work'), {
      jobId,
      every: '1h',
      expectSuccessWithin: '3s',
      onSilent: { webhook: { url: `${hook.url}/silent` } },
    });
    try {
      const [silent] = await waitFor(
        'the silent alert',
        async () => (hook.postsOf(jobId).length > 0 ? hook.postsOf(jobId) : undefined),
        60_000,
      );
      expect(silent).toMatchObject({ kind: 'silent', jobId, schedule: 'active' });
    } finally {
      await scheduler.removeJob(jobId);
    }
  });
});

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createWatchdogWorker } from '../../src/worker/watchdog-worker';
import { connectTest, type TestContext } from '../helpers/temporal';

/*
 * The alert worker runs its workflows on the process's main thread (no worker thread: a second V8 isolate
 * loading the SDK's protobuf code again, about 20 MB of RSS; docs/operations.md), with the SDK's 5 s
 * deadlock timeout, which the SDK's `debugMode` lifts unless given. That option is read by the SDK but is
 * not in its public type: should a later SDK stop reading it, this test says so.
 */

let t: TestContext;

beforeAll(async () => {
  t = await connectTest('alert-main-thread');
});
afterAll(async () => {
  await t?.close();
});

async function compiledOptions(workerOptions?: { debugMode: boolean }) {
  const worker = await createWatchdogWorker({
    connection: t.nativeConnection,
    namespace: t.namespace,
    taskQueue: t.uid('alert-main-thread'),
    workflowBundle: { codePath: inject('workflowBundlePath') },
    ...(workerOptions ? { workerOptions } : {}),
  });
  // Run and stopped at once: a worker created is let go of through its run.
  const running = worker.run();
  worker.shutdown();
  await running;
  return worker.options;
}

describe('the alert worker', () => {
  it('runs its workflows on the main thread, with the 5 s deadlock timeout kept', async () => {
    const options = await compiledOptions();
    expect(options.debugMode).toBe(true);
    expect(options.isolateExecutionTimeoutMs).toBe(5_000);
  });

  it('gives them a thread of their own again with debugMode: false', async () => {
    const options = await compiledOptions({ debugMode: false });
    expect(options.debugMode).toBe(false);
    expect(options.workflowThreadPoolSize).toBe(1);
    expect(options.isolateExecutionTimeoutMs).toBe(5_000);
  });
});

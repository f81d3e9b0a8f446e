/*
 * The watchdog worker of bench/jobs-at-rest.bench.ts, in a process of its own so that its RSS and CPU are
 * its own: `node --import tsx bench/jobs-at-rest-worker.ts <address> <task queue>`. It bundles the
 * workflows from source, polls the watchdog task queue, prints `ready` once polling, and runs until its
 * stdin closes (the bench ended or died).
 */
import { createWatchdogWorker } from '../src/worker/watchdog-worker';
import { buildWorkflowBundle } from '../src/worker/workflow-bundle';
import { runWorkerProcess } from '../test/helpers/worker-process-main';

const noop = () => undefined;
const quiet = { trace: noop, debug: noop, info: noop, log: noop, warn: console.warn, error: console.error };

const [address, taskQueue] = process.argv.slice(2) as [string, string];

runWorkerProcess(
  address,
  async (connection) => {
    const worker = await createWatchdogWorker({
      connection,
      taskQueue,
      workflowBundle: await buildWorkflowBundle(quiet),
    });
    process.stdin.on('end', () => worker.shutdown());
    process.stdin.resume();
    return worker;
  },
  async (worker) => {
    while (worker.getState() !== 'RUNNING') await new Promise((r) => setTimeout(r, 50));
  },
);

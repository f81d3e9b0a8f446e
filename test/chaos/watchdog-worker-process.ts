/*
 * A watchdog worker in its own process, so that test/chaos/watchdog-faults.test.ts can SIGKILL it while
 * the watchdogs sleep toward their deadlines:
 *
 *   node --import tsx test/chaos/watchdog-worker-process.ts <address> <namespace> <watchdogQueue> <bundlePath>
 *
 * Prints `ready` once polling. Alerts go to the jobs' webhooks (the test counts them there).
 */
import { createWatchdogWorker } from '../../src/worker/watchdog-worker';
import { runWorkerProcess } from '../helpers/worker-process-main';

const [address, namespace, taskQueue, bundlePath] = process.argv.slice(2);
if (!address || !namespace || !taskQueue || !bundlePath) {
  throw new Error('usage: watchdog-worker-process.ts <address> <namespace> <watchdogQueue> <bundlePath>');
}

runWorkerProcess(address, (connection) =>
  createWatchdogWorker({
    connection,
    namespace,
    taskQueue,
    workflowBundle: { codePath: bundlePath },
    // A killed worker's sticky queue is abandoned: fall back to the shared queue after 1 s, not 10 s.
    workerOptions: { stickyQueueScheduleToStartTimeout: '1s' },
  }),
);

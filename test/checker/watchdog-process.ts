/*
 * The jobs' watchdog worker (temporal-flow's dead-man switch and server-counted misses) in its own
 * process, so that the checker can SIGKILL it (the `alert-worker-kill` fault):
 *
 *   node --import tsx test/checker/watchdog-process.ts <address> <namespace> <taskQueue> <bundlePath>
 *
 * Its alerts go to the jobs' webhook (the checker's receiver). Prints `ready` once polling.
 */
import { createWatchdogWorker } from '../../src/worker/watchdog-worker';
import { runWorkerProcess } from '../helpers/worker-process-main';

const [address, namespace, taskQueue, bundlePath] = process.argv.slice(2);
if (!address || !namespace || !taskQueue || !bundlePath) {
  throw new Error('usage: watchdog-process.ts <address> <namespace> <taskQueue> <bundlePath>');
}

runWorkerProcess(address, (connection) =>
  createWatchdogWorker({ connection, namespace, taskQueue, workflowBundle: { codePath: bundlePath } }),
);

/*
 * The alert worker of test/chaos/evaluator-resume.test.ts in its own process (createWatchdogWorker), so that
 * the test can SIGKILL it: the evaluator waves every second with a 3 s heartbeat timeout, and the worker
 * keeps the SDK's other defaults, as the checker's and a user's alert worker do (a killed worker's sticky
 * queue is given up after the SDK's 10 s, not watchdog-worker-process.ts's 1 s):
 *
 *   node --import tsx test/chaos/evaluator-resume-process.ts <address> <namespace> <alertQueue> <bundlePath>
 *
 * Prints `ready` once polling. Alerts go to the jobs' webhooks.
 */
import { createWatchdogWorker } from '../../src/worker/watchdog-worker';
import { runWorkerProcess } from '../helpers/worker-process-main';

const [address, namespace, taskQueue, bundlePath] = process.argv.slice(2);
if (!address || !namespace || !taskQueue || !bundlePath) {
  throw new Error('usage: evaluator-resume-process.ts <address> <namespace> <alertQueue> <bundlePath>');
}

runWorkerProcess(address, (connection) =>
  createWatchdogWorker({
    connection,
    namespace,
    taskQueue,
    workflowBundle: { codePath: bundlePath },
    evaluator: { waveMs: 1_000, heartbeatTimeoutMs: 3_000 },
  }),
);

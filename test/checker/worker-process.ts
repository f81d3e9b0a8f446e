/*
 * A worker of the model-based checker in its own process, so that the checker can SIGKILL it:
 *
 *   node --import tsx test/checker/worker-process.ts <address> <namespace> <taskQueue> <bundlePath> <dir>
 *
 * Runs the checker's pipelines (test/checker/pipelines.ts), whose steps log every execution into
 * `<dir>/steps.log` (one file shared by successive and simultaneous workers). Prints `ready` once polling.
 */
import { createWorker } from '../../src/worker/create-worker';
import { runWorkerProcess } from '../helpers/worker-process-main';
import { checkerSteps, flakyPipeline, jobPipeline, keyPipeline, parentPipeline } from './pipelines';

const [address, namespace, taskQueue, bundlePath, dir] = process.argv.slice(2);
if (!address || !namespace || !taskQueue || !bundlePath || !dir) {
  throw new Error('usage: worker-process.ts <address> <namespace> <taskQueue> <bundlePath> <dir>');
}

runWorkerProcess(address, (connection) =>
  createWorker({
    connection,
    namespace,
    taskQueue,
    steps: checkerSteps(dir),
    pipelines: [jobPipeline, keyPipeline, parentPipeline, flakyPipeline],
    workflowBundle: { codePath: bundlePath },
    // A killed worker's sticky queue is abandoned: fall back to the shared queue after 1 s, not 10 s.
    workerOptions: { stickyQueueScheduleToStartTimeout: '1s' },
  }),
);

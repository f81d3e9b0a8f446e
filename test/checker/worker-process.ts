/*
 * A worker of the model-based checker in its own process, so that the checker can SIGKILL it:
 *
 *   node --import tsx test/checker/worker-process.ts <address> <namespace> <taskQueue> <bundlePath> <dir>
 *
 * Runs the checker's pipelines (test/checker/pipelines.ts), whose steps log every execution into
 * `<dir>/steps.log` (one file shared by successive and simultaneous workers). Prints `ready` once polling.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createWorker } from '../../src/worker/create-worker';
import { checkerSteps, flakyPipeline, jobPipeline, keyPipeline, parentPipeline } from './pipelines';

const [address, namespace, taskQueue, bundlePath, dir] = process.argv.slice(2);
if (!address || !namespace || !taskQueue || !bundlePath || !dir) {
  throw new Error('usage: worker-process.ts <address> <namespace> <taskQueue> <bundlePath> <dir>');
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({ address: address! });
  const worker = await createWorker({
    connection,
    namespace: namespace!,
    taskQueue: taskQueue!,
    steps: checkerSteps(dir!),
    pipelines: [jobPipeline, keyPipeline, parentPipeline, flakyPipeline],
    workflowBundle: { codePath: bundlePath! },
    // A killed worker's sticky queue is abandoned: fall back to the shared queue after 1 s, not 10 s.
    workerOptions: { stickyQueueScheduleToStartTimeout: '1s' },
  });
  const running = worker.run();
  console.log('ready');
  await running;
  await connection.close();
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

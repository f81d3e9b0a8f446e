/*
 * The watchdog worker of bench/jobs-at-rest.bench.ts, in a process of its own so that its RSS and CPU are
 * its own: `node --import tsx bench/jobs-at-rest-worker.ts <address> <task queue>`. It bundles the
 * workflows from source, polls the watchdog task queue, prints `ready` once polling, and runs until its
 * stdin closes (the bench ended or died).
 */
import { DefaultLogger, NativeConnection, Runtime, bundleWorkflowCode } from '@temporalio/worker';
import { createWatchdogWorker } from '../src/worker/watchdog-worker';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../src/worker/create-worker';

const noop = () => undefined;
const quiet = { trace: noop, debug: noop, info: noop, log: noop, warn: console.warn, error: console.error };

async function main(): Promise<void> {
  const [address, taskQueue] = process.argv.slice(2) as [string, string];
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({ address });
  const worker = await createWatchdogWorker({
    connection,
    taskQueue,
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
      logger: quiet,
    }),
  });
  process.stdin.on('end', () => worker.shutdown());
  process.stdin.resume();
  const running = worker.run();
  while (worker.getState() !== 'RUNNING') await new Promise((r) => setTimeout(r, 50));
  console.log('ready');
  await running;
  await connection.close();
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

/*
 * A worker process on its own, for a real cluster (docker-compose.yml runs it): connects to
 * TEMPORAL_ADDRESS, serves the example steps on TFLOW_TASK_QUEUE until SIGTERM or Ctrl-C.
 * Many of them may run against one cluster: Temporal starts each scheduled run once.
 */
import { NativeConnection } from '@temporalio/worker';
import { readEnv } from '../src/config';
import { createWorker } from '../src/worker';
import { steps } from './steps';

async function main(): Promise<void> {
  const env = readEnv();
  const address = env.temporalAddress ?? 'localhost:7233';
  const connection = await NativeConnection.connect({ address });
  const worker = await createWorker({
    connection,
    namespace: env.namespace,
    taskQueue: env.taskQueue,
    steps,
    onRunFinished: (e) => console.log(JSON.stringify({ msg: 'run finished', ...e })),
  });
  console.log(
    JSON.stringify({ msg: 'worker started', address, namespace: env.namespace, taskQueue: env.taskQueue }),
  );
  // The SDK's Worker shuts down gracefully on SIGINT/SIGTERM by default.
  await worker.run();
  await connection.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

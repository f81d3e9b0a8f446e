import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';

/*
 * The body of a worker in a process of its own (test/fixtures/*-worker-process.ts, test/checker/worker-process.ts,
 * bench/jobs-at-rest-worker.ts). Plain node, no vitest: a bench imports it too.
 */

/**
 * Runs a worker process: installs a runtime that logs errors only, connects to `address`, creates the worker
 * with `create`, runs it and prints `ready` (after `beforeReady`, when given, has resolved), and closes the
 * connection once the worker stops. A failure is printed and exits the process with 1.
 */
export function runWorkerProcess(
  address: string,
  create: (connection: NativeConnection) => Promise<Worker>,
  beforeReady?: (worker: Worker) => Promise<void>,
): void {
  const main = async (): Promise<void> => {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    const connection = await NativeConnection.connect({ address });
    const worker = await create(connection);
    const running = worker.run();
    if (beforeReady) await beforeReady(worker);
    console.log('ready');
    await running;
    await connection.close();
  };
  void main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

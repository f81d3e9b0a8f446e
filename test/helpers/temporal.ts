import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { createWorker, type CreateWorkerOptions, type Steps } from '../../src/worker/create-worker';
import type { RunFinishedEvent } from '../../src/workflows/sinks';

/** A client connected to the suite's server and a task queue of the test's own. */
export interface TestContext {
  client: Client;
  connection: Connection;
  nativeConnection: NativeConnection;
  taskQueue: string;
  namespace: string;
  /** Unique id with a readable prefix, for workflow and job ids. */
  uid(prefix: string): string;
  /** Starts a worker with these steps on the test's task queue; stopped by {@link TestContext.close}. */
  startWorker(
    steps: Steps,
    opts?: {
      onRunFinished?: (e: RunFinishedEvent) => void;
      codec?: PayloadCodec;
      /** Other Temporal worker options, e.g. fewer activity slots. */
      workerOptions?: CreateWorkerOptions['workerOptions'];
    },
  ): Promise<Worker>;
  close(): Promise<void>;
}

let runtimeInstalled = false;

export async function connectTest(name: string): Promise<TestContext> {
  if (!runtimeInstalled) {
    // Worker state changes are noise in test output; warnings and errors still show.
    Runtime.install({ logger: new DefaultLogger('WARN') });
    runtimeInstalled = true;
  }
  const address = inject('temporalAddress');
  const namespace = inject('temporalNamespace');
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  const client = new Client({ connection, namespace });
  const taskQueue = `${name}-${randomUUID()}`;
  const running: { worker: Worker; done: Promise<void> }[] = [];
  return {
    client,
    connection,
    nativeConnection,
    taskQueue,
    namespace,
    uid: (prefix) => `${prefix}-${randomUUID()}`,
    async startWorker(steps, opts = {}) {
      const worker = await createWorker({
        connection: nativeConnection,
        namespace,
        taskQueue,
        steps,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        ...(opts.onRunFinished ? { onRunFinished: opts.onRunFinished } : {}),
        ...(opts.codec ? { codec: opts.codec } : {}),
        ...(opts.workerOptions ? { workerOptions: opts.workerOptions } : {}),
      });
      running.push({ worker, done: worker.run() });
      return worker;
    },
    async close() {
      for (const { worker, done } of running) {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await done;
      }
      await nativeConnection.close();
      await connection.close();
    },
  };
}

export { waitFor } from './wait-for';

/*
 * What the single-feature examples (dead-letters.ts, rate-limits.ts, ...) share: a server (TEMPORAL_ADDRESS,
 * else a throw-away in-memory dev server), a client, and a way to run workers on a task queue of their own.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { connectToTemporal, connectionOptions, readEnv } from 'temporal-flow';
import { DevServer } from 'temporal-flow/devserver';
import { createWorker, type CreateWorkerOptions } from 'temporal-flow/worker';

export interface ExampleEnv {
  client: Client;
  taskQueue: string;
  namespace: string;
  /** Runs `body` while a worker with these options polls the example's task queue. */
  withWorker: <T>(
    opts: Omit<CreateWorkerOptions, 'connection' | 'taskQueue' | 'namespace'>,
    body: () => Promise<T>,
  ) => Promise<T>;
}

/** Runs an example against a server, then closes everything (and stops the server it started). */
export async function runExample(name: string, example: (env: ExampleEnv) => Promise<void>): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = readEnv();
  const server = env.temporalAddress ? undefined : await DevServer.startEphemeral(env);
  const connect = server ? { address: server.address } : connectionOptions(env, env.temporalAddress!);
  const connection = await connectToTemporal(connect);
  const nativeConnection = await NativeConnection.connect(connect);
  const taskQueue = `example-${name}-${randomUUID().slice(0, 8)}`;
  try {
    await example({
      client: new Client({ connection, namespace: env.namespace }),
      taskQueue,
      namespace: env.namespace,
      async withWorker(opts, body) {
        const worker = await createWorker({
          ...opts,
          connection: nativeConnection,
          taskQueue,
          namespace: env.namespace,
        });
        return worker.runUntil(body());
      },
    });
  } finally {
    await nativeConnection.close();
    await connection.close();
    await server?.stop();
  }
}

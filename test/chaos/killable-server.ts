/*
 * A Temporal dev server on a SQLite file that a chaos test can SIGKILL (DevServer.stop sends SIGTERM, a
 * clean shutdown) and start again on the same port and file: the crash of the server process itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import {
  devServerDynamicConfig,
  dynamicConfigArgs,
  type DevServerTuning,
} from '../../src/devserver/dynamic-config';
import { TFLOW_SEARCH_ATTRIBUTES } from '../../src/workflows/search-attributes';
import { waitFor } from '../helpers/wait-for';

/** One server process, as `temporal server start-dev` runs it for DevServer (headless). */
export interface KillableServer {
  address: string;
  namespace: string;
  child: ChildProcess;
}

/**
 * Starts `temporal server start-dev` on `port` and `dbFile`, with the embedded server's dynamic config
 * (`tuning`, e.g. `{ fairness: true }`); resolves once the namespace answers.
 */
export async function startKillableServer(
  cli: string,
  port: number,
  dbFile: string,
  tuning: DevServerTuning = {},
): Promise<KillableServer> {
  const namespace = 'default';
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--namespace',
    namespace,
    '--log-level',
    'error',
    '--db-filename',
    dbFile,
    '--headless',
    ...Object.entries(TFLOW_SEARCH_ATTRIBUTES).flatMap(([name, type]) => [
      '--search-attribute',
      `${name}=${type}`,
    ]),
    ...dynamicConfigArgs(devServerDynamicConfig(tuning)),
  ];
  const child = spawn(cli, args, { stdio: 'ignore' });
  const address = `127.0.0.1:${port}`;
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exited with ${signal ?? `code ${code}`}`));
  await waitFor(
    `the dev server on ${address}`,
    async () => {
      if (exited) throw new Error(`the dev server ${exited}`);
      const connection = await Connection.connect({ address, connectTimeout: 2_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return true;
      } finally {
        await connection.close();
      }
    },
    60_000,
  );
  if (exited) throw new Error(`the dev server ${exited}`);
  return { address, namespace, child };
}

/** SIGKILLs the server (nothing is flushed or closed: a crash) and waits until the process is gone. */
export async function killServer(server: KillableServer): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { inject } from 'vitest';
import { readEnv } from '../../src/config';
import { ensureTemporalCli } from '../../src/devserver/find-cli';
import { freePort } from '../../src/devserver/ports';
import { waitFor } from './wait-for';

/** A port nothing listens on (taken from the OS, then released). */
export const unusedPort = freePort;

/**
 * A plain `temporal server start-dev` as a user starts it (in memory, headless): none of temporal-flow's
 * search attributes, the `default` namespace's 24 h retention, plus any `extraNamespaces`.
 */
export class PlainServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly address: string,
  ) {}

  static async start(extraNamespaces: string[] = []): Promise<PlainServer> {
    const env = readEnv();
    const cli = await ensureTemporalCli({
      explicitPath: inject('temporalCli') || env.temporalCli,
      searchPath: env.path,
      home: env.home,
      install: false,
    });
    const port = await unusedPort();
    const args = ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port)];
    for (const ns of extraNamespaces) args.push('--namespace', ns);
    args.push('--log-level', 'error');
    const child = spawn(cli.path, args, { stdio: 'ignore' });
    const server = new PlainServer(child, `127.0.0.1:${port}`);
    await waitFor(
      `plain dev server on ${server.address}`,
      async () => {
        const connection = await Connection.connect({ address: server.address, connectTimeout: 1_000 });
        try {
          for (const namespace of ['default', ...extraNamespaces])
            await connection.workflowService.describeNamespace({ namespace });
          return true;
        } finally {
          await connection.close();
        }
      },
      60_000,
    );
    return server;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}

/** What a `tflow` child process printed and how it exited. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `tflow <args>` as a user would, in a child process (async: the test's own worker keeps polling). */
export async function runTflow(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: path.resolve(__dirname, '../..'),
    env: { ...process.env, TEMPORAL_ADDRESS: '', TEMPORAL_API_KEY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  // 'close', not 'exit': all output has been read by then.
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, stdout, stderr };
}

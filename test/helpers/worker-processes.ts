import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { inject } from 'vitest';
import type { TestContext } from './temporal';

/**
 * Worker processes of one test file: each runs a fixture (test/fixtures/<name>.ts) that takes the address,
 * namespace, task queue, workflow bundle and a log file, and prints `ready` once it polls.
 */
export class WorkerProcesses {
  private readonly children: ChildProcess[] = [];

  constructor(private readonly fixture: string) {}

  /** Starts one process; resolves when it is ready, rejects if it exits before. */
  start(t: TestContext, logFile: string): Promise<ChildProcess> {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(__dirname, '../fixtures', this.fixture),
        inject('temporalAddress'),
        t.namespace,
        t.taskQueue,
        inject('workflowBundlePath'),
        logFile,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    this.children.push(child);
    return new Promise((resolve, reject) => {
      child.stdout?.on('data', (b: Buffer) => {
        if (b.toString().includes('ready')) resolve(child);
      });
      child.once('exit', (code) =>
        reject(new Error(`worker process exited with ${code} before it was ready`)),
      );
    });
  }

  /** Stops every process still running (SIGINT: a graceful worker shutdown) and waits for them. */
  async stopAll(): Promise<void> {
    await Promise.all(
      this.children.map(
        (c) =>
          new Promise<void>((resolve) =>
            c.exitCode !== null ? resolve() : (c.once('exit', () => resolve()), c.kill('SIGINT')),
          ),
      ),
    );
  }
}

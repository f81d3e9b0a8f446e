import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { inject } from 'vitest';
import type { TestContext } from './temporal';

/** Where a worker process polls: a server's address, a namespace and a task queue. */
export interface WorkerTarget {
  address: string;
  namespace: string;
  taskQueue: string;
}

/** Whether a child process has neither exited nor been killed. */
export const isRunning = (c: ChildProcess): boolean => c.exitCode === null && c.signalCode === null;

/** SIGKILLs `child` and resolves, with the signal it died of, once it has exited. */
export function sigkill(child: ChildProcess): Promise<NodeJS.Signals | null> {
  if (!isRunning(child)) return Promise.resolve(child.signalCode);
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  child.kill('SIGKILL');
  return exited;
}

/**
 * Worker processes of one test file: each runs a fixture (test/fixtures/<name>.ts) that takes the address,
 * namespace, task queue, workflow bundle and a log file (then any arguments of its own), and prints `ready`
 * once it polls.
 */
export class WorkerProcesses {
  private readonly children: ChildProcess[] = [];

  constructor(private readonly fixture: string) {}

  /** Starts one process on the suite's server; resolves when it is ready, rejects if it exits before. */
  start(t: TestContext, logFile: string, ...args: string[]): Promise<ChildProcess> {
    return this.startOn(
      { address: inject('temporalAddress'), namespace: t.namespace, taskQueue: t.taskQueue },
      logFile,
      ...args,
    );
  }

  /** Starts one process on `target` (a server of the test's own); resolves when it is ready. */
  startOn(target: WorkerTarget, logFile: string, ...args: string[]): Promise<ChildProcess> {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(__dirname, '../fixtures', this.fixture),
        target.address,
        target.namespace,
        target.taskQueue,
        inject('workflowBundlePath'),
        logFile,
        ...args,
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

  /** SIGKILLs every process still running and waits for them (a test's clean-up after crashes). */
  async killAll(): Promise<void> {
    await Promise.all(this.children.map(sigkill));
  }
}

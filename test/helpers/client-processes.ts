import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** A client process of a test: a fixture that prints `ready`, waits for `go` on stdin, then prints lines. */
export interface ClientProcess {
  child: ChildProcess;
  /** Every line printed on stdout so far (`ready` included). */
  lines: string[];
  /** Tells the process to go (writes `go` on its stdin). */
  go(): void;
}

/**
 * Client processes of one test file, each running a fixture (test/fixtures/<name>.ts) with its own
 * arguments: callers that race from separate processes, as separate applications do.
 */
export class ClientProcesses {
  private readonly children: ChildProcess[] = [];

  constructor(private readonly fixture: string) {}

  /** Starts one process; resolves when it prints `ready`, rejects if it exits before. */
  start(args: string[]): Promise<ClientProcess> {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, '../fixtures', this.fixture), ...args],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    this.children.push(child);
    const lines: string[] = [];
    let partial = '';
    return new Promise((resolve, reject) => {
      child.stdout?.on('data', (b: Buffer) => {
        const parts = (partial + b.toString()).split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts) {
          lines.push(line);
          if (line === 'ready') resolve({ child, lines, go: () => child.stdin?.write('go\n') });
        }
      });
      child.once('exit', (code) =>
        reject(new Error(`client process exited with ${code} before it was ready`)),
      );
    });
  }

  /** Kills every process still running (SIGKILL: a client holds nothing to clean up) and waits for them. */
  async killAll(): Promise<void> {
    await Promise.all(
      this.children.map(
        (c) =>
          new Promise<void>((resolve) =>
            c.exitCode !== null || c.signalCode !== null
              ? resolve()
              : (c.once('exit', () => resolve()), c.kill('SIGKILL')),
          ),
      ),
    );
  }
}

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { EXAMPLE_JOBS } from '../../examples/schedules';

/** `npm start` as a user runs it: its own persistent server under a fresh TFLOW_HOME. */
class StartProcess {
  readonly output: string[] = [];
  private readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(home: string) {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'examples/main.ts'], {
      cwd: path.resolve(__dirname, '../..'),
      // The suite's CLI: installing another copy into the fresh home is tested in test/unit/devserver-*.
      env: { ...process.env, TFLOW_HOME: home, TEMPORAL_ADDRESS: '', TEMPORAL_CLI: inject('temporalCli') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (buf: Buffer) => this.output.push(...buf.toString().split('\n').filter(Boolean));
    this.child.stdout?.on('data', collect);
    this.child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  async waitForLine(re: RegExp, timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const line = this.output.find((l) => re.test(l));
      if (line) return line;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no line matching ${re} within ${timeoutMs} ms; output:\n${this.output.join('\n')}`);
  }

  async interrupt(): Promise<number | null> {
    this.child.kill('SIGINT');
    return this.exited;
  }
}

describe('npm start (the main job on the embedded default)', () => {
  let home: string;
  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('shows the UI and a completed health check, stops on Ctrl-C, and restarts without duplicating jobs', async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'tflow-start-'));

    const first = new StartProcess(home);
    await first.waitForLine(/^Temporal UI: +http:\/\/127\.0\.0\.1:\d+$/, 90_000);
    await first.waitForLine(/^run health-check job=example-health-check: completed in \d+ ms/, 60_000);
    expect(await first.interrupt()).toBe(0);
    expect(first.output).toContain('Stopped.');

    const second = new StartProcess(home);
    const serverLine = await second.waitForLine(/^Temporal server: /, 90_000);
    await second.waitForLine(/^Press Ctrl-C to stop\.$/, 60_000);
    const address = /^Temporal server: (\S+)/.exec(serverLine)![1]!;
    const connection = await Connection.connect({ address });
    try {
      const client = new Client({ connection });
      // Schedule listing is eventually consistent: wait until both show, then check nothing else does.
      const listIds = async () => {
        const ids: string[] = [];
        for await (const s of client.schedule.list()) ids.push(s.scheduleId);
        return ids.sort();
      };
      await expect.poll(listIds, { timeout: 20_000, interval: 200 }).toHaveLength(2);
      expect(await listIds()).toEqual([EXAMPLE_JOBS.healthCheck, EXAMPLE_JOBS.nightlyEtl].sort());
    } finally {
      await connection.close();
    }
    expect(await second.interrupt()).toBe(0);
    // The sum of its waits: two starts of a server, a worker and the examples, slow on a busy machine.
  }, 360_000);
});

/*
 * The Temporal server the checker breaks, and its worker processes.
 *
 * - `OwnDevServer`: a dev server of the checker's own on a SQLite file (not the suite's in-memory one, which
 *   other test files use). SIGKILLed and started again on the same port and file.
 * - `ClusterServer`: the PostgreSQL cluster of `npm run test:cluster` (test/cluster/harness): Temporal
 *   SIGKILLed and restarted, and PostgreSQL stopped and started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DevServer } from '../../src/devserver/dev-server';
import type { ClusterLayout } from '../cluster/harness/cluster';
import { startPostgres, stopPostgres } from '../cluster/harness/postgres';
import { startTemporal, stopTemporal } from '../cluster/harness/temporal-process';

/** A fault the server can take. */
export type ServerFault = 'temporal-kill' | 'postgres-stop';

export interface ServerControl {
  readonly address: string;
  readonly namespace: string;
  /** The faults this server can take. */
  readonly faults: readonly ServerFault[];
  /** Takes the fault, keeps it `downMs`, ends it; resolves once the server answers again. */
  fault(kind: ServerFault, downMs: number): Promise<void>;
  close(): Promise<void>;
}

interface DevServerInternals {
  child: ChildProcess;
}

export class OwnDevServer implements ServerControl {
  readonly faults = ['temporal-kill'] as const;
  private constructor(
    private server: DevServer,
    private readonly opts: Parameters<typeof DevServer.start>[0],
    private readonly home: string,
  ) {}

  static async start(cliPath: string): Promise<OwnDevServer> {
    const home = mkdtempSync(path.join(tmpdir(), 'tflow-checker-server-'));
    const opts = {
      home,
      db: path.join(home, 'checker.db'),
      cliPath,
      port: 0,
      uiPort: false as const,
      install: false,
      sdkDownload: false,
    };
    const server = await DevServer.start(opts);
    return new OwnDevServer(server, { ...opts, port: Number(server.address.split(':').pop()) }, home);
  }

  get address(): string {
    return this.server.address;
  }
  get namespace(): string {
    return this.server.namespace;
  }

  async fault(kind: ServerFault, downMs: number): Promise<void> {
    if (kind !== 'temporal-kill') throw new Error(`a dev server cannot take ${kind}`);
    // DevServer.stop() ends the server gracefully (SIGTERM); a crash is a SIGKILL of the same process.
    const { child } = this.server as unknown as DevServerInternals;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    // The outage itself: a duration on the clock.
    await new Promise((r) => setTimeout(r, downMs));
    this.server = await DevServer.start(this.opts);
  }

  async close(): Promise<void> {
    await this.server.stop();
    rmSync(this.home, { recursive: true, force: true });
  }
}

export class ClusterServer implements ServerControl {
  readonly faults = ['temporal-kill', 'postgres-stop'] as const;
  constructor(
    private readonly layout: ClusterLayout,
    readonly address: string,
  ) {}

  get namespace(): string {
    return this.layout.namespace;
  }

  async fault(kind: ServerFault, downMs: number): Promise<void> {
    if (kind === 'temporal-kill') {
      await stopTemporal(this.layout.temporal, 'SIGKILL');
      await new Promise((r) => setTimeout(r, downMs));
      await startTemporal(this.layout.temporal);
    } else {
      await stopPostgres(this.layout.postgres);
      await new Promise((r) => setTimeout(r, downMs));
      await startPostgres(this.layout.postgres);
    }
  }

  async close(): Promise<void> {
    // The cluster belongs to the harness, which stops it after the round.
  }
}

/** Worker processes of the checker (test/checker/worker-process.ts), each SIGKILL-able. */
export class CheckerWorkers {
  private readonly live = new Set<ChildProcess>();
  /** pid -> when the checker SIGKILLed it. */
  readonly killedAt = new Map<number, number>();

  constructor(
    private readonly target: {
      address: string;
      namespace: string;
      taskQueue: string;
      bundlePath: string;
      dir: string;
    },
  ) {}

  private watchdog: ChildProcess | undefined;

  get count(): number {
    return this.live.size;
  }

  /** The task queue of the jobs' watchdogs (the schedulers' `watchdogTaskQueue`). */
  get watchdogTaskQueue(): string {
    return `${this.target.taskQueue}-watchdog`;
  }

  private async spawnWorker(script: string, args: string[]): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, script), ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('ready')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`checker ${script} exited early with ${code}`)));
    });
    return child;
  }

  async start(): Promise<ChildProcess> {
    const { address, namespace, taskQueue, bundlePath, dir } = this.target;
    const child = await this.spawnWorker('worker-process.ts', [
      address,
      namespace,
      taskQueue,
      bundlePath,
      dir,
    ]);
    this.live.add(child);
    child.once('exit', () => this.live.delete(child));
    if (child.exitCode !== null || child.signalCode !== null) this.live.delete(child);
    return child;
  }

  /** The start of the watchdog worker in progress, which concurrent callers share. */
  private watchdogStarting: Promise<void> | undefined;

  /**
   * Starts the watchdog worker (watchdog-process.ts) unless one runs or is starting. One start at a time:
   * faults that end together each call this, and two starts at once left the first worker untracked, never
   * killed by an `alert-worker-kill` nor stopped at the end (13 such processes were found alive after the
   * long runs at seeds 7352 and 2931 on 2026-12-04, so their alert faults killed one of several workers).
   */
  ensureWatchdog(): Promise<void> {
    if (this.watchdogStarting) return this.watchdogStarting;
    if (this.watchdog && this.watchdog.exitCode === null && this.watchdog.signalCode === null)
      return Promise.resolve();
    const { address, namespace, bundlePath } = this.target;
    this.watchdogStarting = this.spawnWorker('watchdog-process.ts', [
      address,
      namespace,
      this.watchdogTaskQueue,
      bundlePath,
    ])
      .then((child) => {
        this.watchdog = child;
      })
      .finally(() => {
        this.watchdogStarting = undefined;
      });
    return this.watchdogStarting;
  }

  /** SIGKILLs the watchdog worker and waits until it is gone. */
  async killWatchdog(): Promise<number | undefined> {
    const child = this.watchdog;
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return undefined;
    const exited = new Promise((r) => child.once('exit', r));
    this.killedAt.set(child.pid, Date.now());
    child.kill('SIGKILL');
    await exited;
    return child.pid;
  }

  /** SIGKILLs one live worker (the oldest) and waits until it is gone. */
  async killOne(): Promise<number | undefined> {
    const child = [...this.live][0];
    if (!child?.pid) return undefined;
    const exited = new Promise((r) => child.once('exit', r));
    this.killedAt.set(child.pid, Date.now());
    child.kill('SIGKILL');
    await exited;
    return child.pid;
  }

  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.live, ...(this.watchdog ? [this.watchdog] : [])].map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGKILL');
          }),
      ),
    );
  }
}

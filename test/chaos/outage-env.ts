/*
 * What the outage test needs around a job: worker processes it can kill, and the time a worker first
 * handled a run (read from the run's history, the same clock the misfire guard reads).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import type { JobRun } from '../../src/client/run-types';

/** Where worker processes connect and what they run. */
export interface WorkerTarget {
  address: string;
  namespace: string;
  taskQueue: string;
  bundlePath: string;
  markerDir: string;
}

/** Starts test/chaos/worker-process.ts and resolves once it polls the task queue. */
export async function startWorkerProcess(target: WorkerTarget): Promise<ChildProcess> {
  const { address, namespace, taskQueue, bundlePath, markerDir } = target;
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(__dirname, 'worker-process.ts'),
      address,
      namespace,
      taskQueue,
      bundlePath,
      markerDir,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker process exited early with ${code}`)));
  });
  return child;
}

/** SIGKILLs a worker process (nothing drains: an outage) and waits until it is gone. */
export async function killWorkerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/** When a worker first handled the run: the time of its first WorkflowTaskStarted event. */
export async function firstTaskAt(client: Client, run: JobRun): Promise<number> {
  const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
  const started = history.events?.find((e) => e.workflowTaskStartedEventAttributes);
  if (!started?.eventTime) throw new Error(`run ${run.workflowId} has no workflow task yet`);
  return tsToMs(started.eventTime);
}

/** A run as the test judges it. */
export interface ObservedRun {
  /** Nominal time, ms. */
  nominal: number;
  firstTask: number;
  status: JobRun['status'];
  skipReason?: string;
  standsFor?: number;
  /** When Temporal started the run (its WorkflowExecutionStarted). */
  started: number;
  closed?: number;
  /** The judged-at instant the run recorded (only runs too late by their own first task record one). */
  judgedAt?: number;
}

/** One line per run, times relative to the outage start, for the test output. */
export function timeline(
  label: string,
  outageStart: number,
  workerBack: number,
  runs: ObservedRun[],
): string {
  const rel = (ms: number) => `${((ms - outageStart) / 1000).toFixed(1)}s`;
  const lines = runs.map((r) => {
    const occurrence = r.standsFor ?? r.nominal;
    const judgedAt = r.judgedAt ?? r.firstTask;
    const status = r.skipReason ? `skipped (${r.skipReason})` : r.status;
    const judged =
      r.judgedAt === undefined || r.judgedAt === r.firstTask
        ? ''
        : `, judged at ${rel(r.judgedAt)} (${r.firstTask - r.judgedAt} ms before its first task)`;
    return `  due ${rel(r.nominal)}${r.standsFor ? ` stood for ${rel(r.standsFor)}` : ''}: ${status}, ${
      judgedAt - occurrence
    } ms late${judged}; first task at ${rel(r.firstTask)}, ${r.firstTask - r.started} ms after Temporal started it${
      r.closed === undefined ? '' : `, closed at ${rel(r.closed)}`
    }`;
  });
  return [`${label} (new worker polling at ${rel(workerBack)}):`, ...lines].join('\n');
}

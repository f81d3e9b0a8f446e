import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { PipelineScheduler, type IntervalJobOptions } from '../../src/client/jobs/pipeline-scheduler';
import { readEnv } from '../../src/config';
import { DevServer } from '../../src/devserver';
import { pipeline, type PipelineLike } from '../../src/pipeline';
import { createWorker, type CreateWorkerOptions, type Steps } from '../../src/worker/create-worker';
import { createWatchdogWorker } from '../../src/worker/watchdog-worker';

/** What a recording script gets: a client and a task queue that a worker with its steps polls. */
export interface RecordingEnv {
  client: Client;
  taskQueue: string;
  /** For a script that needs a worker of its own (e.g. a watchdog worker). */
  nativeConnection: NativeConnection;
}

/**
 * Runs `record` against a throw-away dev server (or TEMPORAL_ADDRESS) while a worker with `steps` polls a
 * fresh task queue; closes everything afterwards. Shared by the record*.ts scripts. `beforeWorker` runs
 * first, while nothing polls the task queue (to record a run that waited for a worker).
 */
export async function withRecordingWorker(
  steps: Steps,
  record: (env: RecordingEnv) => Promise<void>,
  beforeWorker?: (env: RecordingEnv) => Promise<void>,
  /** The worker's pipelines (for rate-limited steps). */
  pipelines?: CreateWorkerOptions['pipelines'],
): Promise<void> {
  // The recorded failures are on purpose: keep the worker's warnings about them out of the output.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = readEnv();
  const server = env.temporalAddress ? undefined : await DevServer.startEphemeral(env);
  const address = env.temporalAddress ?? server!.address;
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const taskQueue = `record-${randomUUID()}`;
  const recording = { client: new Client({ connection }), taskQueue, nativeConnection };
  try {
    await beforeWorker?.(recording);
    const worker = await createWorker({
      connection: nativeConnection,
      taskQueue,
      steps,
      ...(pipelines ? { pipelines } : {}),
    });
    await worker.runUntil(record(recording));
  } finally {
    await nativeConnection.close();
    await connection.close();
    await server?.stop();
  }
}

/** What a recording script of jobs with watchdogs gets: {@link RecordingEnv}, a scheduler and a pipeline. */
export interface WatchdogRecordingEnv extends RecordingEnv {
  /** Writes jobs whose runs go to the task queue and whose watchdogs go to `<taskQueue>-watchdog`. */
  scheduler: PipelineScheduler;
  /** The jobs' pipeline: `scheduled-alerts`, the one step `add`. */
  work: PipelineLike;
  /** Writes a paused job of {@link work} (of 1) every `every`, with `options` (its alerts and policies). */
  pausedJob: (
    jobId: string,
    every: IntervalJobOptions['every'],
    options?: Omit<IntervalJobOptions, 'jobId' | 'every' | 'paused' | 'args'>,
  ) => Promise<string>;
}

/**
 * {@link withRecordingWorker} with a watchdog worker polling `<taskQueue>-watchdog` while `record` runs;
 * its `notify` alert runs the steps' `notify`. Shared by the scripts that record watchdogs and alerts.
 */
export async function withWatchdogRecording(
  steps: Steps & { notify: () => unknown },
  record: (env: WatchdogRecordingEnv) => Promise<void>,
  /** The alert evaluator's pace (see createWatchdogWorker). */
  evaluator?: { waveMs?: number; runForMs?: number; heartbeatTimeoutMs?: number },
): Promise<void> {
  await withRecordingWorker(steps, async (env) => {
    const watchdogTaskQueue = `${env.taskQueue}-watchdog`;
    const watchdogWorker = await createWatchdogWorker({
      connection: env.nativeConnection,
      taskQueue: watchdogTaskQueue,
      alerts: { notify: () => steps.notify() },
      ...(evaluator ? { evaluator } : {}),
    });
    await watchdogWorker.runUntil(async () => {
      const scheduler = new PipelineScheduler(env.client, {
        taskQueue: env.taskQueue,
        steps,
        watchdogTaskQueue,
      });
      const work = pipeline('scheduled-alerts', { steps }).step('add');
      const pausedJob: WatchdogRecordingEnv['pausedJob'] = (jobId, every, options) =>
        scheduler.scheduleInterval(work, { jobId, every, paused: true, args: [1], ...options });
      await record({ ...env, scheduler, work, pausedJob });
    });
  });
}

/** Runs a recording script's main, reporting a failure through the exit code. */
export function runScript(main: () => Promise<void>): void {
  void main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}

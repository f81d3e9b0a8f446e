import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { pipeline } from '../../src/pipeline';
import { createWorker } from '../../src/worker/create-worker';
import { JsonLinesLogger } from '../../src/worker/json-logger';
import { WorkerMetrics } from '../../src/worker/metrics';
import { waitFor } from '../helpers/wait-for';

/*
 * The worker's log lines and metrics against the suite's server. The worker keeps no workflow in its
 * cache, so every workflow task replays the run from its history: a line written on replay would show up
 * twice.
 */
const lines: Record<string, unknown>[] = [];
// Process-wide, before any worker: the SDK's own lines and temporal-flow's events go to this one sink.
Runtime.install({
  logger: new JsonLinesLogger('INFO', (l) => lines.push(JSON.parse(l) as Record<string, unknown>)),
});

const steps = {
  async flaky(n: number) {
    if (Context.current().info.attempt < 2) throw new Error('transient');
    return n + 1;
  },
  async double(n: number) {
    return n * 2;
  },
  async refuse(_n: number) {
    throw ApplicationFailure.create({ type: 'Refused', message: 'refused on purpose', nonRetryable: true });
  },
  /** An `onFailure` hook that fails every attempt (retryable), counting them. */
  async brokenHook(details: { pipeline: string }) {
    hookAttempts.push(`${details.pipeline}#${Context.current().info.attempt}`);
    throw new Error('pager down');
  },
};
const hookAttempts: string[] = [];

const taskQueue = `observe-${randomUUID()}`;
const metrics = new WorkerMetrics();
let connection: Connection;
let nativeConnection: NativeConnection;
let client: Client;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  const address = inject('temporalAddress');
  connection = await Connection.connect({ address });
  nativeConnection = await NativeConnection.connect({ address });
  client = new Client({ connection, namespace: inject('temporalNamespace') });
  worker = await createWorker({
    connection: nativeConnection,
    namespace: inject('temporalNamespace'),
    taskQueue,
    steps,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    ...metrics.handlers,
    workerOptions: { maxCachedWorkflows: 0 },
  });
  running = worker.run();
});
afterAll(async () => {
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running;
  await nativeConnection?.close();
  await connection?.close();
});

const events = (workflowId: string) => lines.filter((l) => l.workflowId === workflowId && l.event);

describe('worker log lines', () => {
  it('one line per run started, step retried and run finished, none repeated on replay', async () => {
    const pipelines = new PipelineClient(client, { taskQueue, steps });
    const workflowId = `observe-${randomUUID()}`;
    const p = pipeline('observed', { steps })
      .step('flaky', { id: 'fetch', retry: { maximumAttempts: 3, initialInterval: 50 } })
      .step('double');
    const handle = await pipelines.start(p, [1], { workflowId });
    await handle.result();
    const { runId } = await handle.describe();
    const mine = await waitFor('the run.finished line', async () =>
      events(workflowId).some((l) => l.event === 'run.finished') ? events(workflowId) : undefined,
    );
    expect(mine.map((l) => l.event)).toEqual(['run.started', 'step.retried', 'run.finished']);
    const ids = { pipeline: 'observed', workflowId, runId, level: 'info' };
    expect(mine[0]).toMatchObject({ ...ids, msg: 'run.started' });
    expect(mine[1]).toMatchObject({ ...ids, step: 'fetch', activity: 'flaky', attempt: 2 });
    expect(mine[2]).toMatchObject({ ...ids, status: 'completed' });
    expect(mine[2]).not.toHaveProperty('job');

    const body = await metrics.registry.metrics();
    expect(body).toContain('tflow_runs_started_total{pipeline="observed",job=""} 1');
    expect(body).toContain('tflow_step_retries_total{pipeline="observed",job="",step="fetch"} 1');
  });

  it('a failing onFailure hook runs once, as documented, and its failure is logged, not swallowed', async () => {
    const pipelines = new PipelineClient(client, { taskQueue, steps });
    const workflowId = `observe-${randomUUID()}`;
    const name = `hooked-${randomUUID().slice(0, 8)}`;
    const p = pipeline(name, { steps }).step('refuse').onFailure('brokenHook');
    const err = await pipelines.run(p, [1], { workflowId }).catch((e: unknown) => e);
    // The run's own failure, not the hook's.
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toMatchObject({ type: 'PipelineFailed' });
    expect(hookAttempts.filter((a) => a.startsWith(`${name}#`))).toEqual([`${name}#1`]);
    const warned = await waitFor('the hook failure line', async () => {
      const found = lines.filter((l) => l.msg === 'onFailure hook failed' && l.workflowId === workflowId);
      return found.length > 0 ? found : undefined;
    });
    expect(warned).toEqual([
      expect.objectContaining({
        level: 'warn',
        sdkComponent: 'workflow',
        pipeline: name,
        onFailure: 'brokenHook',
        failedStep: 'refuse',
        error: 'pager down',
        errorType: 'Error',
      }),
    ]);
  });

  it("a skipped scheduled run: run.skipped with job, reason and nominal time, and the workflow's own log line in the same sink", async () => {
    const scheduler = new PipelineScheduler(client, { taskQueue });
    const name = `skipped-${randomUUID().slice(0, 8)}`;
    const jobId = await scheduler.scheduleInterval(pipeline(name).step('double'), {
      jobId: `observe-${randomUUID()}`,
      every: '10s',
      args: [1],
      paused: true,
      coalesce: false,
      misfireGraceTime: '15s',
    });
    try {
      // The schedule's runs say what they run in the Temporal UI.
      const schedule = await client.schedule.getHandle(jobId).describe();
      expect(schedule.action).toMatchObject({ staticSummary: `${name} (job ${jobId})` });
      expect((schedule.action as { staticDetails?: string }).staticDetails).toContain('1. double');

      // Backfilled occurrences keep their nominal times, 45 to 35 s ago: beyond the 15 s grace.
      await scheduler.backfillJob(jobId, {
        from: new Date(Date.now() - 45_000),
        to: new Date(Date.now() - 35_000),
      });
      const skipped = await waitFor('a run.skipped line', async () =>
        lines.find((l) => l.event === 'run.skipped' && l.job === jobId),
      );
      expect(skipped).toMatchObject({ pipeline: name, status: 'skipped', skipReason: 'misfire' });
      const nominal = Date.parse(skipped.nominalTime as string);
      expect(Date.now() - nominal).toBeGreaterThan(30_000);
      const run = { workflowId: skipped.workflowId, runId: skipped.runId };
      expect(lines.filter((l) => l.event && l.runId === run.runId).map((l) => l.event)).toEqual([
        'run.started',
        'run.skipped',
      ]);
      // The SDK's workflow logger (replay-aware) writes through the same logger.
      expect(lines).toContainEqual(
        expect.objectContaining({
          msg: 'scheduled run skipped',
          sdkComponent: 'workflow',
          ...run,
          reason: 'misfire',
        }),
      );

      // The job metrics read the schedule.
      metrics.watchJobs(scheduler, { filter: { pipeline: name } });
      const body = await metrics.registry.metrics();
      expect(body).toContain('tflow_jobs{state="paused"} 1');
      expect(body).toContain('tflow_jobs{state="active"} 0');
      expect(body).toContain(`tflow_job_runs_missed{job="${jobId}",reason="catchup-window"} 0`);
    } finally {
      await scheduler.removeJob(jobId);
    }
  });
});

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Worker } from '@temporalio/worker';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import type { ScheduledJob } from '../../src/client/jobs/job-types';
import { pipeline } from '../../src/pipeline';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import { postgresRunning, startPostgres, stopPostgres } from './harness/postgres';
import { runningPid, serverAnswers, startTemporal, stopTemporal } from './harness/temporal-process';

/*
 * The fault round of `npm run test:cluster` (never part of `npm test`): runs are held mid-pipeline while
 * the Temporal server is SIGKILLed and restarted, or PostgreSQL is down for 10 s; then they must finish,
 * each step having run exactly once, with one worker that lived through it all, and the schedules must
 * read back as before.
 */

/** Executions of each step, per run (`<run>:<step>`), counted by the steps themselves. */
const executions = new Map<string, number>();
const count = (run: string, step: string) =>
  executions.set(`${run}:${step}`, (executions.get(`${run}:${step}`) ?? 0) + 1);
let released = false;

const steps = {
  async first(run: string) {
    count(run, 'first');
    return run;
  },
  /** Stays in flight until the test releases it, after the fault is over. */
  async hold(run: string) {
    count(run, 'hold');
    while (!released) await new Promise((r) => setTimeout(r, 100));
    return run;
  },
  async last(run: string) {
    count(run, 'last');
    return `${run} done`;
  },
  async tick(run: string) {
    count(run, 'tick');
    return run;
  },
};

const held = pipeline('fault-held', { steps, timeout: '10m' })
  .step('first')
  .step('hold', { timeout: '5m' })
  .step('last');
const ticking = pipeline('fault-tick', { steps, timeout: '5m' }).step('tick');

const layout = inject('clusterLayout');
let t: TestContext;
let worker: Worker;
let runs: PipelineClient;
let scheduler: PipelineScheduler;
let pausedJob: string;
let activeJob: string;

beforeAll(async () => {
  t = await connectTest('faults');
  worker = await t.startWorker(steps);
  runs = new PipelineClient(t.client, { taskQueue: t.taskQueue });
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
  pausedJob = await scheduler.schedule(ticking, {
    jobId: t.uid('fault-paused'),
    cron: '30 4 * * 1-5',
    timezone: 'Europe/Paris',
    args: ['paused-job'],
    maxInstances: 1,
    coalesce: true,
    misfireGraceTime: '10m',
    note: 'kept through faults',
    paused: true,
  });
  activeJob = await scheduler.scheduleInterval(ticking, {
    jobId: t.uid('fault-active'),
    every: '1h',
    args: ['active-job'],
  });
});
afterAll(async () => {
  released = true;
  await t?.close();
});

/** What must survive a fault: everything the job read says, except times computed from "now". */
async function jobState(jobId: string): Promise<Omit<ScheduledJob, 'nextRunTimes'>> {
  const job = await scheduler.getJob(jobId);
  if (job.foreign) throw new Error(`${jobId} reads as a foreign schedule`);
  const { nextRunTimes: _, ...rest } = job;
  return rest;
}

/** Starts `n` runs and resolves once each is inside its `hold` step. */
async function startHeldRuns(label: string, n: number) {
  released = false;
  const started: { run: string; handle: Awaited<ReturnType<PipelineClient['start']>> }[] = [];
  for (let i = 0; i < n; i++) {
    const run = `${label}-${i}`;
    started.push({ run, handle: await runs.start(held, [run], { workflowId: t.uid(run) }) });
  }
  await waitFor(
    `${n} runs to be inside their hold step`,
    async () => (started.every(({ run }) => executions.get(`${run}:hold`) === 1) ? true : undefined),
    60_000,
  );
  return started;
}

/** Releases the held runs and checks that each finished with every step run exactly once. */
async function finishAndCount(started: Awaited<ReturnType<typeof startHeldRuns>>) {
  released = true;
  for (const { run, handle } of started) {
    const result = await handle.result();
    expect(result.output).toBe(`${run} done`);
    expect(['first', 'hold', 'last'].map((step) => executions.get(`${run}:${step}`))).toEqual([1, 1, 1]);
  }
}

/** Triggers the active job and waits until its run has ticked once more. */
async function scheduleStillFires(): Promise<void> {
  const before = executions.get('active-job:tick') ?? 0;
  await scheduler.triggerJob(activeJob);
  await waitFor(
    'the triggered scheduled run to tick',
    async () => ((executions.get('active-job:tick') ?? 0) === before + 1 ? true : undefined),
    60_000,
  );
  // Until it has finished, its run would read back differently in the next comparison.
  await waitFor(
    'the triggered run to finish',
    async () => {
      const job = await scheduler.getJob(activeJob);
      return !job.foreign && job.counters?.running === 0 ? true : undefined;
    },
    60_000,
  );
}

describe('cluster faults', () => {
  it('Temporal server SIGKILLed mid-run and restarted: runs finish, no step runs twice, schedules intact', async () => {
    const jobsBefore = [await jobState(pausedJob), await jobState(activeJob)];
    const started = await startHeldRuns('server-kill', 4);

    const killed = runningPid(layout.temporal);
    expect(killed).toBeDefined();
    await stopTemporal(layout.temporal, 'SIGKILL');
    expect(await serverAnswers(layout.temporal.address)).toBe(false);
    await startTemporal(layout.temporal);
    expect(runningPid(layout.temporal)).not.toBe(killed);

    await finishAndCount(started);
    expect([await jobState(pausedJob), await jobState(activeJob)]).toEqual(jobsBefore);
    await scheduleStillFires();
    expect(worker.getState()).toBe('RUNNING');
  }, 300_000);

  it('PostgreSQL down for 10 s: runs finish, no step runs twice, schedules intact', async () => {
    const jobsBefore = [await jobState(pausedJob), await jobState(activeJob)];
    const started = await startHeldRuns('pg-outage', 4);

    await stopPostgres(layout.postgres);
    expect(await postgresRunning(layout.postgres)).toBe(false);
    // The outage itself: how long the database stays away, not a wait for some condition.
    await new Promise((r) => setTimeout(r, 10_000));
    await startPostgres(layout.postgres);

    await finishAndCount(started);
    expect([await jobState(pausedJob), await jobState(activeJob)]).toEqual(jobsBefore);
    await scheduleStillFires();
    expect(worker.getState()).toBe('RUNNING');
  }, 300_000);
});

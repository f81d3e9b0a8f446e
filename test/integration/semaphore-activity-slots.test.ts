import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { PipelineClient, type PipelineRunHandle } from '../../src/client/runs/pipeline-client';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { concurrencySemaphoreId, waitingQuery } from '../../src/workflows/semaphore/semaphore-defs';
import type { temporal } from '@temporalio/proto';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * The semaphore's liveness check must not need a free activity slot of the worker. The runs that ask for a
 * slot do so in an activity (update-with-start) that occupies one of the worker's activity slots until the
 * semaphore answers; when the semaphore is full it first checks that its holders still run. Were that
 * check an activity on the same task queue, a worker whose slots are all taken by runs asking (a flood of
 * runs behind one key) could not run the check the askers wait for: each ask held its slot until its 30 s
 * timeout, and a 30-minute cluster run left thousands of runs at their first activity.
 */

const opened = new Set<string>();
const steps = {
  /** Holds its slot of `key` until `label` (or `*`) is opened. */
  async hold(_key: string, label: string) {
    while (!opened.has(label) && !opened.has('*')) await new Promise((r) => setTimeout(r, 50));
    return label;
  },
};

/** A job's pipeline (maxInstances is the job's). */
const jobPipeline = pipeline('slots-job', { steps }).step('hold');

const oneAtATime = pipeline('slots-one-at-a-time', {
  steps,
  concurrencyKey: ([key]) => String(key),
  maxConcurrent: 1,
}).step('hold');

/** The worker's activity slots: the holder's step takes one, so two are left for the runs that ask. */
const ACTIVITY_SLOTS = 3;
const ASKERS = 6;

let t: TestContext;
let client: PipelineClient;
let scheduler: PipelineScheduler;

beforeAll(async () => {
  t = await connectTest('semaphore-slots');
  await t.startWorker(steps, { workerOptions: { maxConcurrentActivityTaskExecutions: ACTIVITY_SLOTS } });
  client = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
});

afterAll(async () => {
  opened.add('*');
  await t?.close();
});

/** Attempts of each start of `activity` in a history, and how many of its tasks timed out. */
function asks(history: temporal.api.history.v1.IHistory, activity: string) {
  const events = history.events ?? [];
  const scheduled = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activity)
      .map((e) => String(e.eventId)),
  );
  return {
    attempts: events
      .filter((e) => scheduled.has(String(e.activityTaskStartedEventAttributes?.scheduledEventId)))
      .map((e) => e.activityTaskStartedEventAttributes!.attempt),
    timedOut: events.filter((e) =>
      scheduled.has(String(e.activityTaskTimedOutEventAttributes?.scheduledEventId)),
    ).length,
  };
}

describe('a semaphore on a worker whose activity slots are all taken by runs asking', () => {
  it('checks its holders without an activity slot: every ask is answered at its first attempt', async () => {
    const key = `k-${randomUUID()}`;
    const holder = await client.start(oneAtATime, [key, 'holder'], { workflowId: t.uid('slots-holder') });
    const semaphore = t.client.workflow.getHandle(concurrencySemaphoreId('slots-one-at-a-time', key));
    // The holder is in its step (its slot granted) before the others ask.
    await waitFor('the holder in its step', async () => {
      const d = await t.client.workflow.getHandle(holder.workflowId).describe();
      return d.raw.pendingActivities?.some((a) => a.activityType?.name === 'hold') ? true : undefined;
    });
    const askers: PipelineRunHandle[] = await Promise.all(
      Array.from({ length: ASKERS }, (_, i) =>
        client.start(oneAtATime, [key, `asker-${i}`], { workflowId: t.uid(`slots-asker-${i}`) }),
      ),
    );
    // Every asker in line: the semaphore checked its holder (full) and queued them.
    await waitFor(
      `all ${ASKERS} askers in line`,
      async () => ((await semaphore.query(waitingQuery)).length === ASKERS ? true : undefined),
      120_000,
    );
    // No ask waited out its activity timeout: each answered at its first attempt.
    for (const run of askers) {
      const history = await t.client.workflow.getHandle(run.workflowId).fetchHistory();
      expect({ run: run.workflowId, ...asks(history, 'tflowQueueForSlot') }).toEqual({
        run: run.workflowId,
        attempts: [1],
        timedOut: 0,
      });
    }
    // And the line moves: the holder, then each asker in turn, completes.
    opened.add('holder');
    for (let i = 0; i < ASKERS; i++) opened.add(`asker-${i}`);
    await holder.result();
    const outputs = await Promise.all(askers.map(async (r) => (await r.result()).output));
    expect(outputs).toEqual(Array.from({ length: ASKERS }, (_, i) => `asker-${i}`));
  }, 240_000);

  it('refuses the runs of a full job (maxInstances 2) without an activity slot: each at its first ask', async () => {
    const key = t.uid('slots-job');
    const jobId = await scheduler.scheduleInterval(jobPipeline, {
      jobId: key,
      every: '10s',
      args: [key, key],
      paused: true,
      maxInstances: 2,
    });
    // Eight occurrences at once: two hold the job's slots (and two activity slots) until opened, six ask.
    const to = Math.floor(Date.now() / 10_000) * 10_000 - 5_000;
    await scheduler.backfillJob(jobId, { from: new Date(to - 80_000), to: new Date(to) });
    const runs = await waitFor(
      'six runs refused, two running',
      async () => {
        const r = await scheduler.getHistory(jobId, { limit: 20 });
        const skipped = r.filter((x) => x.status === 'skipped');
        return r.length === 8 && skipped.length === 6 ? r : undefined;
      },
      120_000,
    );
    for (const run of runs.filter((r) => r.status === 'skipped')) {
      const history = await t.client.workflow.getHandle(run.workflowId).fetchHistory();
      expect({ run: run.workflowId, ...asks(history, 'tflowAcquireSlot') }).toEqual({
        run: run.workflowId,
        attempts: [1],
        timedOut: 0,
      });
    }
    opened.add(key);
    await waitFor(
      'the two holders completed',
      async () => {
        const r = await scheduler.getHistory(jobId, { limit: 20 });
        return r.filter((x) => x.status === 'completed').length === 2 ? true : undefined;
      },
      60_000,
    );
    await scheduler.removeJob(jobId);
  }, 240_000);
});

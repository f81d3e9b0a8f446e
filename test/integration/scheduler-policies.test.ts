import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { JobNotFoundError } from '../../src/client/errors';
import type { JobRun } from '../../src/client/runs/run-types';
import type { JobPolicies } from '../../src/schedule/policies';
import type { JobErrorEvent } from '../../src/workflows/run-types';
import { holdersQuery, semaphoreWorkflowId } from '../../src/workflows/semaphore/semaphore-defs';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * Policies driven with backfill and triggers on paused jobs, never by waiting for wall-clock minutes.
 * The `hold` step blocks until its lane is opened and records how many runs of a lane are inside at once.
 */

interface Lane {
  inside: number;
  maxInside: number;
  entered: number;
  open: boolean;
  waiters: (() => void)[];
}
const lanes = new Map<string, Lane>();
function lane(key: string): Lane {
  let l = lanes.get(key);
  if (!l) lanes.set(key, (l = { inside: 0, maxInside: 0, entered: 0, open: false, waiters: [] }));
  return l;
}
function openLane(key: string): void {
  const l = lane(key);
  l.open = true;
  for (const w of l.waiters.splice(0)) w();
}
const errors: JobErrorEvent[] = [];

const steps = {
  async hold(key: string) {
    const l = lane(key);
    l.inside++;
    l.entered++;
    l.maxInside = Math.max(l.maxInside, l.inside);
    try {
      if (!l.open) await new Promise<void>((resolve) => l.waiters.push(resolve));
    } finally {
      l.inside--;
    }
    return key;
  },
  async explode(key: string): Promise<string> {
    throw new Error(`boom ${key}`);
  },
  async recordError(event: JobErrorEvent) {
    errors.push(event);
  },
};

let t: TestContext;
let scheduler: PipelineScheduler;
const holdPipeline = pipeline('policies-hold', { steps }).step('hold');

beforeAll(async () => {
  t = await connectTest('policies');
  await t.startWorker(steps);
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => {
  for (const key of lanes.keys()) openLane(key);
  await t?.close();
});

const ago = (ms: number) => new Date(Date.now() - ms);

/** A paused job running `holdPipeline` every 10 s on lane `key` (its steps wait until the lane opens). */
function holdJob(key: string, policies: JobPolicies = {}): Promise<string> {
  return scheduler.scheduleInterval(holdPipeline, {
    jobId: key,
    every: '10s',
    args: [key],
    paused: true,
    ...policies,
  });
}

/** Backfills a maxInstances-2 job and waits until two runs hold its slots; returns them. */
async function twoHolders(key: string, jobId: string): Promise<JobRun[]> {
  await scheduler.backfillJob(jobId, { from: ago(25_000), to: ago(1_000) });
  return waitFor('two runs holding a slot', async () => {
    const runs = await scheduler.getHistory(jobId, { limit: 100 });
    const running = runs.filter((r) => r.status === 'running');
    return lane(key).inside === 2 && running.length === 2 ? running : undefined;
  });
}
/**
 * A past window holding exactly `n` occurrences of a `everyMs` interval: both ends sit mid-way between
 * occurrences, so the count does not depend on the clock or on whether the bounds are inclusive.
 */
function windowOf(n: number, everyMs: number): { from: Date; to: Date } {
  const to = Math.floor(Date.now() / everyMs) * everyMs - everyMs / 2;
  return { from: new Date(to - n * everyMs), to: new Date(to) };
}
const count = (runs: JobRun[], pred: (r: JobRun) => boolean) => runs.filter(pred).length;

describe('maxInstances > 1: a per-job semaphore in Temporal', () => {
  it('never runs 3 at once with maxInstances 2 under a burst of backfills and triggers; extra runs are skipped', async () => {
    const key = t.uid('burst');
    const jobId = await holdJob(key, { maxInstances: 2 });
    // Two backfills of distinct windows (each occurrence has its own nominal time) and a trigger.
    await scheduler.backfillJob(jobId, { from: ago(120_000), to: ago(61_000) });
    await scheduler.backfillJob(jobId, { from: ago(60_000), to: ago(1_000) });
    await scheduler.triggerJob(jobId);
    const started = await waitFor('every run of the burst to be decided', async () => {
      const runs = await scheduler.getHistory(jobId, { limit: 100 });
      const skipped = count(runs, (r) => r.status === 'skipped');
      return runs.length >= 10 && skipped === runs.length - 2 && lane(key).inside === 2 ? runs : undefined;
    });
    for (const run of started.filter((r) => r.status === 'skipped')) {
      expect(run).toMatchObject({ skipReason: 'max-instances' });
    }
    expect(lane(key).maxInside).toBe(2);

    openLane(key);
    const done = await waitFor('the two holders to complete', async () => {
      const runs = await scheduler.getHistory(jobId, { limit: 100 });
      return count(runs, (r) => r.status === 'completed') === 2 ? runs : undefined;
    });
    expect(count(done, (r) => r.status === 'running')).toBe(0);
    expect(lane(key).maxInside).toBe(2);
    expect(lane(key).entered).toBe(2);

    // The slots were given back: a new run gets one.
    await scheduler.triggerJob(jobId);
    await waitFor('a third completed run', async () => {
      const runs = await scheduler.getHistory(jobId, { limit: 100 });
      return count(runs, (r) => r.status === 'completed') === 3 ? true : undefined;
    });
    await scheduler.removeJob(jobId);
  });

  it('frees the slot of a run that was terminated (it never released it)', async () => {
    const key = t.uid('terminated');
    const jobId = await holdJob(key, { maxInstances: 2 });
    const holders = await twoHolders(key, jobId);
    for (const h of holders) await t.client.workflow.getHandle(h.workflowId, h.runId).terminate('test');
    openLane(key);
    await scheduler.triggerJob(jobId);
    await waitFor('a new run to get a slot and complete', async () => {
      const runs = await scheduler.getHistory(jobId, { limit: 100 });
      return runs.some((r) => r.status === 'completed') ? true : undefined;
    });
    await scheduler.removeJob(jobId);
  });
  it('gives the slot back when a run is cancelled (released from its finally)', async () => {
    const key = t.uid('cancelled');
    const jobId = await holdJob(key, { maxInstances: 2 });
    const holders = await twoHolders(key, jobId);
    const semaphore = t.client.workflow.getHandle(semaphoreWorkflowId(jobId));
    expect(await semaphore.query(holdersQuery)).toHaveLength(2);
    await t.client.workflow.getHandle(holders[0]!.workflowId, holders[0]!.runId).cancel();
    const left = await waitFor('the cancelled run to release its slot', async () => {
      const h = await semaphore.query(holdersQuery);
      return h.length === 1 ? h : undefined;
    });
    expect(left[0]!.workflowId).toBe(holders[1]!.workflowId);
    openLane(key);
    await scheduler.removeJob(jobId);
  });
});

describe('maxInstances 1: coalesce maps to SKIP or BUFFER_ALL (driven with triggers and backfill)', () => {
  it('coalesce: true (SKIP) starts one run and skips the overlapping ones', async () => {
    const key = t.uid('skip');
    const jobId = await holdJob(key, { coalesce: true });
    // A trigger passes the job's own overlap policy: while the first run holds, the others are skipped.
    await scheduler.triggerJob(jobId);
    await waitFor('the first run to hold', async () => (lane(key).inside === 1 ? true : undefined));
    for (let i = 0; i < 4; i++) await scheduler.triggerJob(jobId);
    const job = await waitFor('Temporal to count the skipped runs', async () => {
      const j = await scheduler.getJob(jobId);
      return !j.foreign && (j.counters?.skippedOverlap ?? 0) >= 4 ? j : undefined;
    });
    expect(!job.foreign && job.counters?.skippedOverlap).toBe(4);
    openLane(key);
    const runs = await waitFor('the single run to complete', async () => {
      const r = await scheduler.getHistory(jobId);
      return r[0]?.status === 'completed' ? r : undefined;
    });
    expect(runs).toHaveLength(1);
    expect(lane(key).entered).toBe(1);
    await scheduler.removeJob(jobId);
  });

  it(
    'backfillJob of a coalescing job (SKIP) runs every occurrence of the window, one at a time, in order',
    { timeout: 120_000 },
    async () => {
      const key = t.uid('skip-backfill');
      const jobId = await holdJob(key, { coalesce: true });
      const window = windowOf(4, 10_000);
      await scheduler.backfillJob(jobId, window);
      await waitFor('the first run to hold', async () => (lane(key).inside === 1 ? true : undefined));
      openLane(key);
      const runs = await waitFor(
        'every backfilled run to complete',
        async () => {
          const r = await scheduler.getHistory(jobId);
          return r.length === 4 && r.every((x) => x.status === 'completed') ? r : undefined;
        },
        60_000,
      );
      // The window's four occurrences, oldest first: 10 s apart from 5 s after its start.
      const expected = [0, 1, 2, 3].map((i) =>
        new Date(window.from.getTime() + 5_000 + i * 10_000).toISOString(),
      );
      const byStart = [...runs].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
      expect(byStart.map((r) => r.scheduledAt?.toISOString())).toEqual(expected);
      for (let i = 1; i < byStart.length; i++) {
        expect(byStart[i]!.startedAt.getTime()).toBeGreaterThanOrEqual(byStart[i - 1]!.closedAt!.getTime());
      }
      expect(lane(key).maxInside).toBe(1);
      const job = await scheduler.getJob(jobId);
      expect(!job.foreign && job.counters?.skippedOverlap).toBe(0);
      await scheduler.removeJob(jobId);
    },
  );

  it(
    'coalesce: false (BUFFER_ALL) queues the overlapping runs and runs them one after the other',
    { timeout: 120_000 },
    async () => {
      const key = t.uid('buffer');
      const jobId = await holdJob(key, { coalesce: false });
      await scheduler.backfillJob(jobId, windowOf(4, 10_000));
      await waitFor('the first run to hold', async () => (lane(key).inside === 1 ? true : undefined));
      const job = await scheduler.getJob(jobId);
      expect(!job.foreign && job.counters?.skippedOverlap).toBe(0);
      openLane(key);
      // The schedule starts each buffered run once it sees the previous one closed: allow for a busy server.
      const runs = await waitFor(
        'every buffered run to complete',
        async () => {
          const r = await scheduler.getHistory(jobId);
          return r.length === 4 && r.every((x) => x.status === 'completed') ? r : undefined;
        },
        60_000,
      );
      expect(lane(key).maxInside).toBe(1);
      expect(lane(key).entered).toBe(runs.length);
      // One after the other: each run started after the previous one closed.
      const byStart = [...runs].reverse();
      for (let i = 1; i < byStart.length; i++) {
        expect(byStart[i]!.startedAt.getTime()).toBeGreaterThanOrEqual(byStart[i - 1]!.closedAt!.getTime());
      }
      await scheduler.removeJob(jobId);
    },
  );
});

describe('misfireGraceTime: the in-workflow guard', () => {
  it('ends runs started later than the grace after their nominal time as skipped, running no step', async () => {
    const key = t.uid('misfire');
    openLane(key);
    const jobId = await holdJob(key, { coalesce: false, misfireGraceTime: '15s' });
    // Backfilled occurrences keep their old nominal times: 60 to 30 seconds ago, beyond the 15 s grace.
    await scheduler.backfillJob(jobId, { from: ago(60_000), to: ago(30_000) });
    const late = await waitFor('the late runs to end', async () => {
      const r = await scheduler.getHistory(jobId);
      return r.length >= 3 && r.every((x) => x.status !== 'running') ? r : undefined;
    });
    for (const run of late) {
      expect(run).toMatchObject({ status: 'skipped', skipReason: 'misfire' });
      expect(run.startedAt.getTime() - run.scheduledAt!.getTime()).toBeGreaterThan(15_000);
    }
    expect(lane(key).entered).toBe(0);
    // A run on time runs its steps.
    await scheduler.triggerJob(jobId);
    await waitFor('the on-time run to complete', async () => {
      const r = await scheduler.getHistory(jobId);
      return r.some((x) => x.status === 'completed') ? true : undefined;
    });
    expect(lane(key).entered).toBe(1);
    const result = (await t.client.workflow
      .getHandle(late[0]!.workflowId, late[0]!.runId)
      .result()) as unknown;
    expect(result).toEqual({ status: 'skipped', skipReason: 'misfire', steps: [] });
    // A skipped run still answers the progress query (answered from its history: the run is closed).
    const progress = await t.client.workflow
      .getHandle(late[0]!.workflowId, late[0]!.runId)
      .query<{ status: string; currentStep: string | null; completed: unknown[] }>('progress');
    expect(progress).toMatchObject({ status: 'skipped', currentStep: null, completed: [] });
    await scheduler.removeJob(jobId);
  });
  it('judges a backfilled run of a paused coalescing job by its own nominal time, not a later occurrence', async () => {
    const key = t.uid('misfire-paused');
    openLane(key);
    // coalesce: true (SKIP). The job fires every 10 s, so an occurrence within the 15 s grace came due
    // while paused; the backfilled run must not stand for it (paused occurrences are not missed ones).
    const jobId = await holdJob(key, { coalesce: true, misfireGraceTime: '15s' });
    await scheduler.backfillJob(jobId, { from: ago(60_000), to: ago(50_000) });
    const [run] = await waitFor('the backfilled run to end', async () => {
      const r = await scheduler.getHistory(jobId);
      return r.length >= 1 && r.every((x) => x.status !== 'running') ? r : undefined;
    });
    expect(run).toMatchObject({ status: 'skipped', skipReason: 'misfire' });
    expect(run!.standsFor).toBeUndefined();
    expect(lane(key).entered).toBe(0);
    await scheduler.removeJob(jobId);
  });
});

describe('one-off jobs and onError', () => {
  it('a one-off runs once and is then gone from listJobs', async () => {
    const key = t.uid('once');
    openLane(key);
    const jobId = await scheduler.scheduleAt(holdPipeline, {
      jobId: key,
      runAt: new Date(Date.now() + 2_000),
      args: [key],
    });
    const before = await scheduler.getJob(jobId);
    expect(before).toMatchObject({ foreign: false, remainingActions: 1, paused: false });
    await waitFor('the one-off to be listed', async () =>
      (await scheduler.listJobs()).some((j) => j.id === jobId) ? true : undefined,
    );
    await waitFor('the one-off run to complete', async () => {
      const r = await scheduler.getHistory(jobId);
      return r[0]?.status === 'completed' ? true : undefined;
    });
    await waitFor('the one-off to leave listJobs', async () =>
      (await scheduler.listJobs()).some((j) => j.id === jobId) ? undefined : true,
    );
    await expect(scheduler.getJob(jobId)).rejects.toThrow(JobNotFoundError);
    expect(lane(key).entered).toBe(1);
    expect(await scheduler.getHistory(jobId)).toHaveLength(1);
  });

  it('runs the onError activity on the worker when a scheduled run fails for good', async () => {
    const key = t.uid('onerror');
    const failing = pipeline('policies-explode', { steps }).step('explode', {
      retry: { maximumAttempts: 2, initialInterval: '10ms' },
    });
    const jobId = await scheduler.scheduleInterval(failing, {
      jobId: key,
      hours: 1,
      args: [key],
      onError: 'recordError',
      paused: true,
    });
    await scheduler.triggerJob(jobId);
    const event = await waitFor('the onError event', async () => errors.find((e) => e.jobId === jobId));
    expect(event).toMatchObject({
      jobId,
      pipeline: 'policies-explode',
      type: 'PipelineFailed',
      message: `pipeline "policies-explode" failed at step "explode": boom ${key}`,
      details: { failedStep: 'explode', attempts: 2, input: [key] },
    });
    expect(event.workflowId.startsWith(`${jobId}-`)).toBe(true);
    const [run] = await waitFor('the failed run in history', async () => {
      const r = await scheduler.getHistory(jobId);
      return r[0]?.status === 'failed' ? r : undefined;
    });
    expect(run!.runId).toBe(event.runId);
    await scheduler.removeJob(jobId);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import type { Worker } from '@temporalio/worker';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { createWorker } from '../../src/worker/create-worker';
import { createWatchdogWorker } from '../../src/worker/watchdog-worker';
import { AlertMetrics } from '../../src/worker/alert-metrics';
import { watchdogStateQuery, watchdogWorkflowId } from '../../src/workflows/alerts/watchdog-defs';
import { startAlertHook, type AlertHook } from '../helpers/alert-hook';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * Each alert driven on a real server, received by a local webhook: a misfired run (onMissed), a late run
 * (onLate), and a job whose worker is stopped past expectSuccessWithin, then started again (silent, then
 * recovered). The watchdogs run on a watchdog worker of their own queue, apart from the jobs' workers.
 */

/** Posts the webhook accepted, in arrival order; `/flaky` answers 503 to the first post of each job. */
const refused = new Set<string>();
let hook: AlertHook;
let hookUrl: string;
const postsOf = (jobId: string) => hook.postsOf(jobId);

/** Runs of `hold` wait until the gate opens. */
let openGate: () => void = () => undefined;
const gate = new Promise<void>((resolve) => (openGate = resolve));

const steps = {
  async work(x: number) {
    return x + 1;
  },
  async hold(x: number) {
    await gate;
    return x;
  },
  async fail(): Promise<number> {
    throw ApplicationFailure.create({ type: 'Broken', message: 'broken on purpose', nonRetryable: true });
  },
};
const work = pipeline('alerts-work', { steps }).step('work');

let t: TestContext;
let scheduler: PipelineScheduler;
let watchdogQueue: string;
const metrics = new AlertMetrics();
const extraWorkers: { worker: Worker; done: Promise<void> }[] = [];

async function runWorker(worker: Worker): Promise<{ worker: Worker; done: Promise<void> }> {
  const running = { worker, done: worker.run() };
  extraWorkers.push(running);
  return running;
}

beforeAll(async () => {
  hook = await startAlertHook((req, event) => {
    if (req.url !== '/flaky' || refused.has(event.jobId)) return undefined;
    refused.add(event.jobId);
    return 503;
  });
  hookUrl = hook.url;
  t = await connectTest('alerts');
  watchdogQueue = `${t.taskQueue}-watchdog`;
  await t.startWorker(steps);
  await runWorker(
    await createWatchdogWorker({
      connection: t.nativeConnection,
      namespace: t.namespace,
      taskQueue: watchdogQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      onAlertDelivery: metrics.recordDelivery,
    }),
  );
  scheduler = new PipelineScheduler(t.client, {
    taskQueue: t.taskQueue,
    steps,
    watchdogTaskQueue: watchdogQueue,
  });
});
afterAll(async () => {
  openGate();
  for (const { worker, done } of extraWorkers) {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await done;
  }
  await t?.close();
  await hook?.close();
});

/** A past window holding exactly one occurrence of a 10 s interval, 10 to 20 s ago. */
function oneOccurrence(): { from: Date; to: Date; at: Date } {
  const to = Math.floor(Date.now() / 10_000) * 10_000 - 5_000;
  return { from: new Date(to - 10_000), to: new Date(to), at: new Date(to - 5_000) };
}

describe('onMissed and onLate: raised by the run itself', () => {
  it('posts one missed alert for a misfired run, with its nominal time, through a webhook that failed once', async () => {
    const jobId = t.uid('misfired');
    await scheduler.scheduleInterval(work, {
      jobId,
      every: '10s',
      args: [1],
      paused: true,
      misfireGraceTime: '2s',
      onMissed: { webhook: { url: `${hookUrl}/flaky`, timeout: '5s' } },
    });
    const { from, to, at } = oneOccurrence();
    await scheduler.backfillJob(jobId, { from, to });
    const [event] = await waitFor('the missed alert', async () => {
      const posts = postsOf(jobId);
      return posts.length > 0 ? posts : undefined;
    });
    expect(event).toMatchObject({
      kind: 'missed',
      jobId,
      reason: 'misfire',
      nominalTimes: [at.toISOString()],
    });
    expect(event!.text).toContain(`job "${jobId}" missed its run of ${at.toISOString()}`);
    // The first post was refused (503) and retried by Temporal: the webhook saw it twice, kept it once.
    expect(refused.has(jobId)).toBe(true);
    // The run closes after its delivery activity (and visibility follows): its outcome is waited for.
    const run = await waitFor('the misfired run to close', async () => {
      const [r] = await scheduler.getHistory(jobId);
      return r && r.status !== 'running' ? r : undefined;
    });
    expect(run).toMatchObject({ status: 'skipped', skipReason: 'misfire' });
    const history = await t.client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
    // One delivery activity in the run's history (beside the coalescing lookup), on its second attempt.
    const events = history.events!;
    const scheduled = events.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'tflowDeliverAlert',
    );
    expect(scheduled).toHaveLength(1);
    const started = events.find(
      (e) => Number(e.activityTaskStartedEventAttributes?.scheduledEventId) === Number(scheduled[0]!.eventId),
    );
    expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(2);
    // A run on time raises nothing.
    await scheduler.triggerJob(jobId);
    await waitFor('the on-time run', async () =>
      (await scheduler.getHistory(jobId)).some((r) => r.status === 'completed') ? true : undefined,
    );
    expect(postsOf(jobId)).toHaveLength(1);
    await scheduler.removeJob(jobId);
  });

  it('posts one late alert for a run whose first step started past lateAfter, none for a run on time', async () => {
    const jobId = t.uid('late');
    await scheduler.scheduleInterval(work, {
      jobId,
      every: '10s',
      args: [1],
      paused: true,
      lateAfter: '3s',
      onLate: { webhook: { url: `${hookUrl}/late` } },
    });
    // One after the other: the job skips an occurrence due while a run is running (overlap SKIP).
    await scheduler.triggerJob(jobId);
    await waitFor('the on-time run to complete', async () => {
      const runs = await scheduler.getHistory(jobId);
      return runs.length === 1 && runs[0]!.status === 'completed' ? true : undefined;
    });
    const { from, to, at } = oneOccurrence();
    await scheduler.backfillJob(jobId, { from, to });
    await waitFor(
      'the late run to complete',
      async () => {
        const runs = await scheduler.getHistory(jobId);
        return runs.length === 2 && runs.every((r) => r.status === 'completed') ? true : undefined;
      },
      40_000,
    );
    const posts = await waitFor('the late alert', async () =>
      postsOf(jobId).length > 0 ? postsOf(jobId) : undefined,
    );
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ kind: 'late', jobId, nominalTimes: [at.toISOString()] });
    expect(posts[0]!.lateMs).toBeGreaterThan(10_000);
    await scheduler.removeJob(jobId);
  });
});

describe('expectSuccessWithin: the dead-man switch', () => {
  it('posts silent once when the job worker is stopped past expectSuccessWithin, then recovered when it returns; removeJob ends the watchdog', async () => {
    const jobId = t.uid('deadman');
    const jobQueue = `${t.taskQueue}-deadman`;
    const own = new PipelineScheduler(t.client, {
      taskQueue: jobQueue,
      steps,
      watchdogTaskQueue: watchdogQueue,
      // As the scheduler's defaults: the job inherits them.
      expectSuccessWithin: '4s',
      onSilent: { webhook: { url: `${hookUrl}/deadman` } },
    });
    const jobWorker = () =>
      createWorker({
        connection: t.nativeConnection,
        namespace: t.namespace,
        taskQueue: jobQueue,
        steps,
        workflowBundle: { codePath: inject('workflowBundlePath') },
      });
    const first = await runWorker(await jobWorker());
    await own.scheduleInterval(work, { jobId, every: '1s', args: [1] });
    const described = await own.getJob(jobId);
    expect(described.foreign).toBe(false);
    expect(!described.foreign && described.alerts).toEqual({
      expectSuccessWithin: '4s',
      onSilent: { webhook: { url: `${hookUrl}/deadman` } },
    });
    await waitFor('a few runs to complete', async () => {
      const runs = await own.getHistory(jobId, { limit: 10 });
      return runs.filter((r) => r.status === 'completed').length >= 3 ? true : undefined;
    });
    expect(postsOf(jobId)).toEqual([]);

    first.worker.shutdown();
    await first.done;
    const stoppedAt = Date.now();
    const [silent] = await waitFor(
      'the silent alert',
      async () => (postsOf(jobId).length > 0 ? postsOf(jobId) : undefined),
      30_000,
    );
    // Raised no sooner than expectSuccessWithin after the last completed run, which was before the stop.
    expect(Date.parse(silent!.at) - Date.parse(silent!.lastSuccessAt!)).toBeGreaterThanOrEqual(4_000);
    expect(Date.parse(silent!.lastSuccessAt!)).toBeLessThanOrEqual(stoppedAt);
    expect(silent).toMatchObject({ kind: 'silent', jobId, schedule: 'active', expectSuccessWithinMs: 4_000 });
    // Once per silent period: a further 5 s (more than expectSuccessWithin) raise nothing more.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(postsOf(jobId)).toHaveLength(1);

    await runWorker(await jobWorker());
    const posts = await waitFor(
      'the recovered alert',
      async () => (postsOf(jobId).length >= 2 ? postsOf(jobId) : undefined),
      30_000,
    );
    expect(posts.map((e) => e.kind)).toEqual(['silent', 'recovered']);
    expect(posts[1]!.lastSuccessAt).toBe(silent!.lastSuccessAt);
    const metricsText = await metrics.registry.metrics();
    expect(metricsText).toContain(`tflow_job_silent{job="${jobId}"} 0`);
    expect(metricsText).toMatch(/tflow_alert_deliveries_total\{kind="silent",outcome="delivered"\} [1-9]/);

    await own.removeJob(jobId);
    const watchdog = t.client.workflow.getHandle(watchdogWorkflowId(jobId));
    await waitFor('the watchdog to end with its job', async () =>
      (await watchdog.describe()).status.name === 'COMPLETED' ? true : undefined,
    );
    expect(postsOf(jobId)).toHaveLength(2);
  });
});

describe('expectSuccessWithin: whatever keeps the job from succeeding', () => {
  /** The hook's port is known once beforeAll ran. */
  const deadman = () => ({ expectSuccessWithin: '3s', onSilent: { webhook: { url: `${hookUrl}/deadman` } } });

  it('goes silent for a paused job and for runs that keep failing, and recovers at the next completed run', async () => {
    const paused = t.uid('paused');
    const failing = t.uid('failing');
    await scheduler.scheduleInterval(work, {
      jobId: paused,
      every: '1h',
      args: [1],
      paused: true,
      ...deadman(),
    });
    await scheduler.scheduleInterval(pipeline('alerts-fail', { steps }).step('fail'), {
      jobId: failing,
      every: '1s',
      ...deadman(),
    });
    const silent = await waitFor('both jobs to go silent', async () =>
      postsOf(paused).length > 0 && postsOf(failing).length > 0
        ? [postsOf(paused), postsOf(failing)]
        : undefined,
    );
    expect(silent[0]).toEqual([expect.objectContaining({ kind: 'silent', schedule: 'paused' })]);
    expect(silent[1]).toEqual([expect.objectContaining({ kind: 'silent', schedule: 'active' })]);
    const failed = await scheduler.getHistory(failing);
    expect(failed.some((r) => r.status === 'failed')).toBe(true);
    expect(failed.some((r) => r.status === 'completed')).toBe(false);
    await scheduler.removeJob(failing);

    await scheduler.resumeJob(paused);
    await scheduler.triggerJob(paused);
    const posts = await waitFor('the paused job to recover', async () =>
      postsOf(paused).length >= 2 ? postsOf(paused) : undefined,
    );
    expect(posts.map((e) => e.kind)).toEqual(['silent', 'recovered']);
    await scheduler.removeJob(paused);
    expect(postsOf(failing)).toHaveLength(1);
  });

  it('reports the occurrences the server skipped for overlap, read by the watchdog, with their count', async () => {
    const jobId = t.uid('overlap');
    await scheduler.scheduleInterval(pipeline('alerts-hold', { steps }).step('hold'), {
      jobId,
      every: '1s',
      args: [1],
      onMissed: { webhook: { url: `${hookUrl}/missed` } },
      ...deadman(),
    });
    // The first run holds (overlap SKIP): the server skips the next occurrences; at the dead-man deadline
    // the watchdog reads the counters, raises silent, then one missed alert with what they gained.
    const posts = await waitFor(
      'the silent and overlap alerts',
      async () => (postsOf(jobId).length >= 2 ? postsOf(jobId) : undefined),
      30_000,
    );
    expect(posts.map((e) => e.kind)).toEqual(['silent', 'missed']);
    expect(posts[1]).toMatchObject({ reason: 'overlap' });
    const d = await t.client.schedule.getHandle(jobId).describe();
    expect(posts[1]!.count).toBeGreaterThanOrEqual(1);
    expect(posts[1]!.count).toBeLessThanOrEqual(d.info.numActionsSkippedOverlap);
    openGate();
    await waitFor('the recovered alert', async () => (postsOf(jobId).length >= 3 ? true : undefined));
    expect(postsOf(jobId)[2]).toMatchObject({ kind: 'recovered' });
    await scheduler.removeJob(jobId);
  });
});

describe('bad alert options', () => {
  it('refuses half a pair and an unknown alert activity, creating nothing', async () => {
    const jobId = t.uid('bad');
    await expect(
      scheduler.scheduleInterval(work, { jobId, every: '1h', onLate: { webhook: { url: hookUrl } } }),
    ).rejects.toMatchObject({ name: 'InvalidArgumentError', field: 'lateAfter' });
    await expect(
      scheduler.scheduleInterval(work, { jobId, every: '1h', onMissed: 'pageSomeone' }),
    ).rejects.toThrow(/onMissed "pageSomeone" is not one of the worker's steps/);
    await expect(scheduler.getJob(jobId)).rejects.toMatchObject({ name: 'JobNotFoundError' });
  });
});

describe('the watchdog follows the job', () => {
  it('starts when modifyJob adds a dead-man switch, and matches the last of concurrent alert edits', async () => {
    const jobId = t.uid('follows');
    const onSilent = { webhook: { url: `${hookUrl}/follows` } };
    await scheduler.scheduleInterval(work, { jobId, every: '1h', args: [1], paused: true });
    const watchdog = t.client.workflow.getHandle(watchdogWorkflowId(jobId));
    await expect(watchdog.describe()).rejects.toMatchObject({ name: 'WorkflowNotFoundError' });
    await scheduler.modifyJob(jobId, { expectSuccessWithin: '1h', onSilent });
    await waitFor('the watchdog to read the job', async () => {
      const state = await watchdog.query(watchdogStateQuery);
      return state.config?.expectSuccessWithinMs === 3_600_000 ? true : undefined;
    });

    const edits = [
      { expectSuccessWithin: '2h', onSilent },
      { expectSuccessWithin: null, onSilent: null },
      { expectSuccessWithin: '3h', onSilent },
      { expectSuccessWithin: null, onSilent: null },
    ] as const;
    for (let round = 0; round < 2; round++) {
      const order = round % 2 === 0 ? edits : [...edits].reverse();
      const results = await Promise.allSettled(order.map((e) => scheduler.modifyJob(jobId, e)));
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      const job = await scheduler.getJob(jobId);
      const expectMs = !job.foreign && job.alerts?.expectSuccessWithin;
      await waitFor(`round ${round}: the watchdog to match the job (${String(expectMs)})`, async () => {
        const d = await watchdog.describe();
        if (!expectMs) return d.status.name === 'COMPLETED' ? true : undefined;
        if (d.status.name !== 'RUNNING') return undefined;
        const state = await watchdog.query(watchdogStateQuery);
        return state.config?.expectSuccessWithinMs === (expectMs === '2h' ? 7_200_000 : 10_800_000)
          ? true
          : undefined;
      });
    }
    await scheduler.removeJob(jobId);
    expect(postsOf(jobId)).toEqual([]);
  });
});

describe('a watchdog at rest', () => {
  it('sleeps one timer until the next nominal time (its counters) or its deadline, and a completed run adds no timer command', async () => {
    const jobId = t.uid('at-rest');
    // A daily time 12 hours away: nothing is due while the test runs.
    const hour = (new Date().getUTCHours() + 12) % 24;
    await scheduler.schedule(work, {
      jobId,
      cron: `0 ${hour} * * *`,
      timezone: 'UTC',
      args: [1],
      onMissed: { webhook: { url: `${hookUrl}/at-rest` } },
      expectSuccessWithin: '25h',
      onSilent: { webhook: { url: `${hookUrl}/at-rest` } },
    });
    const watchdog = t.client.workflow.getHandle(watchdogWorkflowId(jobId));
    const read = await waitFor('the watchdog to read the job', async () => {
      const s = await watchdog.query(watchdogStateQuery);
      return s.config && s.countsDueAt ? s : undefined;
    });
    const d = await t.client.schedule.getHandle(jobId).describe();
    // The counters are read next after the next nominal time (plus its 30 s grace), not in 5 minutes.
    expect(read.countsDueAt).toBe(new Date(d.info.nextActionTimes[0]!.getTime() + 30_000).toISOString());
    for (let i = 0; i < 2; i++) {
      const before = (await watchdog.query(watchdogStateQuery)).lastSuccessAt;
      await scheduler.triggerJob(jobId);
      await waitFor(`triggered run ${i + 1} to move the last success`, async () =>
        (await watchdog.query(watchdogStateQuery)).lastSuccessAt > before ? true : undefined,
      );
    }
    const events = (await watchdog.fetchHistory()).events ?? [];
    const count = (has: (e: (typeof events)[number]) => unknown) => events.filter((e) => has(e)).length;
    // One read at start, one timer (the earlier of the nominal time and the deadline), two signals that
    // moved the last success without a timer cancelled or started. Each trigger also tells the watchdog
    // to read the counts within 30 s (an overlap skip of a trigger is counted at once, not at a nominal
    // time): the first moves its one timer to that read (one timer cancelled, one started), the second,
    // whose read would not be earlier, costs nothing. The read itself is 30 s away.
    expect(count((e) => e.activityTaskScheduledEventAttributes)).toBe(1);
    expect(count((e) => e.timerStartedEventAttributes)).toBe(2);
    expect(count((e) => e.timerCanceledEventAttributes)).toBe(1);
    expect(
      events
        .map((e) => e.workflowExecutionSignaledEventAttributes?.signalName)
        .filter(Boolean)
        .sort(),
    ).toEqual(['countsChanged', 'countsChanged', 'reconfigure', 'runSucceeded', 'runSucceeded']);
    await scheduler.removeJob(jobId);
    await waitFor('the watchdog to end with its job', async () =>
      (await watchdog.describe()).status.name === 'COMPLETED' ? true : undefined,
    );
    expect(postsOf(jobId)).toEqual([]);
  });
});

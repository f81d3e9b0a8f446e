import { scheduledRunWorkflowId } from '../../src/activities/alerts/evaluator/evaluator-sources';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import type { Worker } from '@temporalio/worker';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { createWorker } from '../../src/worker/create-worker';
import { createWatchdogWorker } from '../../src/worker/watchdog-worker';
import { AlertMetrics } from '../../src/worker/alert-metrics';
import type { AlertCheck } from '../../src/activities/alerts/alert-activities';
import {
  ALERT_DELIVERY_WORKFLOW_TYPE,
  ALERT_EVALUATOR_WORKFLOW_TYPE,
  evaluatorHeartbeat,
  waitForWaves,
  workflowTypesOn,
} from '../helpers/alert-evaluator';
import { alertEvaluatorWorkflowId } from '../../src/workflows/alerts/evaluator-defs';
import { startAlertHook, type AlertHook } from '../helpers/alert-hook';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * Each alert driven on a real server, received by a local webhook: a misfired run (onMissed), a late run
 * (onLate), and a job whose worker is stopped past expectSuccessWithin, then started again (silent, then
 * recovered). The alerts are evaluated by the shared evaluator of an alert worker on a queue of its own,
 * apart from the jobs' workers: no workflow per job.
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
/** The evaluator's due checks, as its worker's onAlertCheck saw them. */
const checks: AlertCheck[] = [];
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
      onAlertCheck: (check) => {
        checks.push(check);
        metrics.recordCheck(check);
      },
      evaluator: { waveMs: 1_000, heartbeatTimeoutMs: 3_000 },
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
  it('posts silent once when the job worker is stopped past expectSuccessWithin, then recovered when it returns, with no workflow of its own', async () => {
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
    // Once per silent period: waves evaluated over more than expectSuccessWithin raise nothing more.
    const waveAt = Date.now();
    await waitForWaves(t.client, watchdogQueue, 3);
    expect(Date.now() - waveAt).toBeGreaterThanOrEqual(2_000);
    expect(postsOf(jobId)).toHaveLength(1);

    await runWorker(await jobWorker());
    const posts = await waitFor(
      'the recovered alert',
      async () => (postsOf(jobId).length >= 2 ? postsOf(jobId) : undefined),
      30_000,
    );
    expect(posts.map((e) => e.kind)).toEqual(['silent', 'recovered']);
    expect(posts[1]!.lastSuccessAt).toBe(silent!.lastSuccessAt);
    // The webhook has the post before the delivery's activity reports it to the metrics: wait for that.
    const metricsText = await waitFor('the recovered delivery counted', async () => {
      const text = await metrics.registry.metrics();
      return text.includes(`tflow_job_silent{job="${jobId}"} 0`) ? text : undefined;
    });
    expect(metricsText).toMatch(/tflow_alert_deliveries_total\{kind="silent",outcome="delivered"\} [1-9]/);
    // The deadline was checked, within a few waves of when it was due, and measured.
    const deadlineChecks = checks.filter((c) => c.jobId === jobId && c.due.includes('deadline'));
    expect(deadlineChecks.length).toBeGreaterThan(0);
    expect(deadlineChecks[0]!.checkedAt.getTime() - deadlineChecks[0]!.dueAt.getTime()).toBe(
      deadlineChecks[0]!.lagMs,
    );
    expect(deadlineChecks[0]!.lagMs).toBeLessThan(10_000);
    expect(metricsText).toMatch(/tflow_alert_check_lag_seconds_count\{due="deadline"\} [1-9]/);

    // The job is one Temporal entity: on the alert queue, only the shared evaluator and one delivery
    // workflow per alert raised ran.
    await waitFor('the deliveries to be listed', async () => {
      const types = await workflowTypesOn(t.client, watchdogQueue);
      return (types[ALERT_DELIVERY_WORKFLOW_TYPE] ?? 0) >= 2 ? types : undefined;
    });
    const types = await workflowTypesOn(t.client, watchdogQueue);
    expect(Object.keys(types).sort()).toEqual(
      [ALERT_DELIVERY_WORKFLOW_TYPE, ALERT_EVALUATOR_WORKFLOW_TYPE].sort(),
    );
    expect(types[ALERT_EVALUATOR_WORKFLOW_TYPE]).toBe(1);

    await own.removeJob(jobId);
    await waitForWaves(t.client, watchdogQueue, 2);
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

  it('reports the occurrences the server skipped for overlap, read by the evaluator, with their count', async () => {
    const jobId = t.uid('overlap');
    await scheduler.scheduleInterval(pipeline('alerts-hold', { steps }).step('hold'), {
      jobId,
      every: '1s',
      args: [1],
      onMissed: { webhook: { url: `${hookUrl}/missed` } },
      ...deadman(),
    });
    // The first run holds (overlap SKIP): the server skips the next occurrences; at the dead-man deadline
    // the evaluator raises silent, and when it reads the counters (a grace after it first saw the job) one
    // missed alert with what they gained.
    const posts = await waitFor(
      'the silent and overlap alerts',
      async () => (postsOf(jobId).length >= 2 ? postsOf(jobId) : undefined),
      60_000,
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

describe('onMissed: an occurrence the server gave up starting', () => {
  it('posts missed (not-started) for the one time whose start the server dropped without counting it, nothing for the times that ran', async () => {
    const jobId = t.uid('dropped');
    await scheduler.scheduleInterval(work, {
      jobId,
      every: '10s',
      args: [1],
      // A run slower than 10 s (a loaded machine) must not make the server skip the next time for overlap:
      // the only time lost here is the one the blocker holds.
      overlap: 'ALLOW_ALL',
      onMissed: { webhook: { url: `${hookUrl}/dropped` } },
    });
    const d = await t.client.schedule.getHandle(jobId).describe();
    if (d.action.type !== 'startWorkflow') throw new Error('not a workflow action');
    const at = d.info.nextActionTimes.find((time) => time.getTime() >= Date.now() + 10_000)!;
    // The server names the run of a scheduled time `<workflow id>-<time to the second, RFC 3339>` and
    // refuses a second workflow of that id: a workflow already holding it makes the server drop that
    // start, and count it nowhere (as when starts fail until the catch-up window ends).
    const blockerId = scheduledRunWorkflowId(d.action.workflowId, at.getTime());
    const blocker = await t.client.workflow.start('tflow-test-blocker', {
      workflowId: blockerId,
      taskQueue: `${t.taskQueue}-nobody`,
    });
    try {
      // The evaluator matches the times it listed: it has read the job before that time.
      await waitFor('the evaluator to expect the time', async () => {
        const hb = await evaluatorHeartbeat(t.client, watchdogQueue);
        return hb?.expected?.[jobId]?.t.includes(at.getTime()) ? true : undefined;
      });
      expect(Date.now()).toBeLessThan(at.getTime());
      const [event] = await waitFor(
        'the not-started alert',
        async () => (postsOf(jobId).length > 0 ? postsOf(jobId) : undefined),
        // The next time (10 s later) starting tells the evaluator the server is done with this one.
        at.getTime() - Date.now() + 90_000,
      );
      expect(event).toMatchObject({
        kind: 'missed',
        reason: 'not-started',
        nominalTimes: [at.toISOString()],
        count: 1,
      });
      // The server itself counted nothing: without this check the time was lost silently.
      const after = await t.client.schedule.getHandle(jobId).describe();
      expect(after.info.numActionsMissedCatchupWindow).toBe(0);
      expect(after.info.numActionsSkippedOverlap).toBe(0);
      // The times before and after it ran, and raised nothing.
      const started = after.info.recentActions.map((a) => a.scheduledAt.getTime());
      expect(started.some((time) => time > at.getTime())).toBe(true);
      expect(started).not.toContain(at.getTime());
      await waitForWaves(t.client, watchdogQueue, 6);
      expect(postsOf(jobId)).toHaveLength(1);
    } finally {
      await blocker.terminate('test over');
      await scheduler.removeJob(jobId);
    }
  }, 150_000);
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

describe('the evaluator follows the job', () => {
  it('starts evaluating when modifyJob adds a dead-man switch, and obeys the last of concurrent alert edits', async () => {
    const jobId = t.uid('follows');
    const onSilent = { webhook: { url: `${hookUrl}/follows` } };
    await scheduler.scheduleInterval(work, { jobId, every: '1h', args: [1], paused: true });
    // A paused job never succeeds: with a switch of 2 s, it goes silent (schedule: paused).
    const setAt = Date.now();
    await scheduler.modifyJob(jobId, { expectSuccessWithin: '2s', onSilent });
    const [first] = await waitFor('the silent alert of the switch just set', async () =>
      postsOf(jobId).length > 0 ? postsOf(jobId) : undefined,
    );
    expect(first).toMatchObject({ kind: 'silent', schedule: 'paused', expectSuccessWithinMs: 2_000 });
    // Its clock started at the switch (deadManSince), not at the job's create.
    expect(Date.parse(first!.lastSuccessAt!)).toBeGreaterThanOrEqual(setAt);

    const edits = [
      { expectSuccessWithin: '2s', onSilent },
      { expectSuccessWithin: null, onSilent: null },
      { expectSuccessWithin: '3s', onSilent },
      { expectSuccessWithin: null, onSilent: null },
    ] as const;
    for (let round = 0; round < 2; round++) {
      const order = round % 2 === 0 ? edits : [...edits].reverse();
      const results = await Promise.allSettled(order.map((e) => scheduler.modifyJob(jobId, e)));
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      const after = await scheduler.getJob(jobId);
      const expectMs = !after.foreign && after.alerts?.expectSuccessWithin;
      const before = postsOf(jobId).length;
      if (expectMs) {
        // Set again: a fresh clock (deadManSince moved or kept), and a page only once it runs out.
        const posts = await waitFor(`round ${round}: a silent alert of ${String(expectMs)}`, async () =>
          postsOf(jobId).length > before ? postsOf(jobId) : undefined,
        );
        expect(posts.at(-1)).toMatchObject({
          kind: 'silent',
          expectSuccessWithinMs: expectMs === '2s' ? 2_000 : 3_000,
        });
      } else {
        await waitForWaves(t.client, watchdogQueue, 4);
        expect(postsOf(jobId)).toHaveLength(before);
      }
    }
    await scheduler.removeJob(jobId);
  });
});

describe('the evaluator at rest', () => {
  it('costs its jobs nothing between waves: no per-job workflow, timer or signal, one activity, one hint per trigger', async () => {
    const jobId = t.uid('at-rest');
    // A daily time 12 hours away: nothing is due while the test runs.
    const hour = (new Date().getUTCHours() + 12) % 24;
    const evaluator = t.client.workflow.getHandle(alertEvaluatorWorkflowId(watchdogQueue));
    const eventsBefore = (await evaluator.fetchHistory()).events ?? [];
    await scheduler.schedule(work, {
      jobId,
      cron: `0 ${hour} * * *`,
      timezone: 'UTC',
      args: [1],
      onMissed: { webhook: { url: `${hookUrl}/at-rest` } },
      expectSuccessWithin: '25h',
      onSilent: { webhook: { url: `${hookUrl}/at-rest` } },
    });
    await waitFor('the evaluator to watch the job', async () => {
      const hb = await evaluatorHeartbeat(t.client, watchdogQueue);
      return hb?.jobs !== undefined && hb.jobs > 0 ? true : undefined;
    });
    for (let i = 0; i < 2; i++) {
      const before = (await scheduler.getHistory(jobId)).length;
      await scheduler.triggerJob(jobId);
      await waitFor(`triggered run ${i + 1} to complete`, async () => {
        const runs = await scheduler.getHistory(jobId);
        return runs.length > before && runs.every((r) => r.status === 'completed') ? true : undefined;
      });
    }
    await waitForWaves(t.client, watchdogQueue, 3);
    const events = ((await evaluator.fetchHistory()).events ?? []).slice(eventsBefore.length);
    // Two triggers sent two hints (the counts of a trigger's overlap skip are read within a minute); the
    // job's create, its completed runs and the waves added nothing to the evaluator's history.
    expect(events.map((e) => e.workflowExecutionSignaledEventAttributes?.signalName).filter(Boolean)).toEqual(
      ['countsChanged', 'countsChanged'],
    );
    expect(events.filter((e) => e.timerStartedEventAttributes)).toEqual([]);
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toEqual([]);
    expect(postsOf(jobId)).toEqual([]);
    await scheduler.removeJob(jobId);
  });
});

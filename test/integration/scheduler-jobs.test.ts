import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { ForeignScheduleError, JobNotFoundError } from '../../src/client/errors';
import { jobDstWarnings } from '../../src/client/jobs/job-describe';
import type { ForeignJob, ScheduledJobDescription } from '../../src/client/jobs/job-types';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

const steps = {
  async greet(name: string) {
    return `hello ${name}`;
  },
  async explode(name: string): Promise<string> {
    throw new Error(`cannot process ${name}`);
  },
};

let t: TestContext;
let scheduler: PipelineScheduler;
const greet = pipeline('jobs-greet', { steps }).step('greet');
const explode = pipeline('jobs-explode', { steps }).step('explode', { retry: { maximumAttempts: 1 } });

beforeAll(async () => {
  t = await connectTest('jobs');
  await t.startWorker(steps);
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => t?.close());

async function ours(jobId: string): Promise<ScheduledJobDescription> {
  const job = await scheduler.getJob(jobId);
  if (job.foreign) throw new Error(`${jobId} is foreign`);
  return job;
}

describe('jobs round-trip', () => {
  it('getJob returns the job exactly as created, plus next runs and counters', async () => {
    const jobId = await scheduler.schedule(greet, {
      jobId: t.uid('etl'),
      cron: '0 2 * * *',
      timezone: 'Europe/Paris',
      args: ['eu'],
      maxInstances: 1,
      coalesce: true,
      misfireGraceTime: '10m',
      note: 'nightly',
      paused: true,
    });
    const job = await ours(jobId);
    expect(job).toMatchObject({
      foreign: false,
      id: jobId,
      pipeline: 'jobs-greet',
      trigger: { cron: '0 2 * * *', timezone: 'Europe/Paris' },
      timezone: 'Europe/Paris',
      args: ['eu'],
      policies: { maxInstances: 1, coalesce: true, misfireGraceTime: '10m' },
      note: 'nightly',
      paused: true,
      editedOutside: false,
      counters: { actionsTaken: 0, skippedOverlap: 0, missedCatchupWindow: 0, running: 0 },
      recentRuns: [],
    });
    expect(job.nextRunTimes.length).toBeGreaterThan(2);
    for (const at of job.nextRunTimes) {
      const local = DateTime.fromJSDate(at, { zone: 'Europe/Paris' });
      expect([local.hour, local.minute]).toEqual([2, 0]);
    }
    // What DST does to it in the coming year, in the job's own zone (not the scheduler's default, UTC).
    // Any 12 months hold one spring-forward day, on which 02:00 does not exist in Paris.
    expect(jobDstWarnings(job)).toContainEqual(
      expect.objectContaining({
        kind: 'skipped',
        message: expect.stringMatching(
          /^\d{4}-03-\d\d 02:00 Europe\/Paris does not exist \(clocks go 02:00 -> 03:00\): Temporal skips this run$/,
        ) as unknown,
      }),
    );

    const listed = await waitFor('the job in listJobs', async () =>
      (await scheduler.listJobs({ pipeline: 'jobs-greet' })).find((j) => j.id === jobId),
    );
    expect(listed).toMatchObject({
      foreign: false,
      trigger: job.trigger,
      policies: job.policies,
      paused: true,
    });
    const detailed = await scheduler.listJobs({ pipeline: 'jobs-greet', details: true });
    expect(detailed.find((j) => j.id === jobId)).toMatchObject({ args: ['eu'], counters: job.counters });
    await scheduler.removeJob(jobId);
    await expect(scheduler.getJob(jobId)).rejects.toThrow(JobNotFoundError);
  });

  it('rescheduleJob changes only when; modifyJob changes only what', async () => {
    const jobId = await scheduler.schedule(greet, {
      jobId: t.uid('resched'),
      cron: '*/15 9-17 * * MON-FRI',
      timezone: 'America/New_York',
      args: ['a'],
      coalesce: false,
      note: 'before',
      paused: true,
    });
    await scheduler.rescheduleJob(jobId, { every: '2h', offset: '1h' });
    let job = await ours(jobId);
    expect(job).toMatchObject({
      trigger: { every: '2h', offset: '1h' },
      timezone: 'UTC',
      args: ['a'],
      policies: { coalesce: false },
      note: 'before',
      paused: true,
      editedOutside: false,
    });
    for (const at of job.nextRunTimes) expect(at.getUTCHours() % 2).toBe(1);
    let raw = await t.client.schedule.getHandle(jobId).describe();
    expect(raw.policies.overlap).toBe('BUFFER_ALL');

    await scheduler.modifyJob(jobId, { args: ['b'], note: 'after', maxInstances: 3, misfireGraceTime: '1m' });
    job = await ours(jobId);
    expect(job).toMatchObject({
      trigger: { every: '2h', offset: '1h' },
      args: ['b'],
      note: 'after',
      policies: { coalesce: false, maxInstances: 3, misfireGraceTime: '1m' },
      editedOutside: false,
    });
    raw = await t.client.schedule.getHandle(jobId).describe();
    expect(raw.policies).toMatchObject({ overlap: 'ALLOW_ALL', catchupWindow: 60_000 });
    expect(raw.action.args?.[0]).toMatchObject({ job: { jobId, maxInstances: 3, misfireGraceMs: 60_000 } });
    expect(raw.spec.intervals).toEqual([{ every: 7_200_000, offset: 3_600_000 }]);

    await scheduler.rescheduleJob(jobId, { cron: '@daily', timezone: 'Asia/Tokyo' });
    job = await ours(jobId);
    expect(job).toMatchObject({ trigger: { cron: '@daily', timezone: 'Asia/Tokyo' }, args: ['b'] });
    expect(job.policies.maxInstances).toBe(3);
    await scheduler.removeJob(jobId);
  });

  it('rescheduleJob turns a job into a one-off and back; replaceExisting rewrites the record too', async () => {
    const jobId = await scheduler.scheduleInterval(greet, {
      jobId: t.uid('to-once'),
      hours: 1,
      paused: true,
    });
    await scheduler.rescheduleJob(jobId, { runAt: '2031-01-01T00:00:00Z' });
    expect(await ours(jobId)).toMatchObject({
      trigger: { runAt: '2031-01-01T00:00:00Z' },
      remainingActions: 1,
      nextRunTimes: [new Date('2031-01-01T00:00:00Z')],
      editedOutside: false,
    });
    let raw = await t.client.schedule.getHandle(jobId).describe();
    expect(raw.action.args?.[0]).toMatchObject({ job: { jobId, once: true } });

    await scheduler.rescheduleJob(jobId, { every: '30m' });
    const back = await ours(jobId);
    expect(back).toMatchObject({ trigger: { every: '30m' }, editedOutside: false });
    expect(back.remainingActions).toBeUndefined();
    raw = await t.client.schedule.getHandle(jobId).describe();
    // Back to an interval job: no `once`; the default policies (overlap SKIP) make its runs coalesce.
    expect((raw.action.args?.[0] as { job: object }).job).toEqual({ jobId, coalesce: true });

    await scheduler.schedule(greet, {
      jobId,
      cron: '15 6 * * *',
      args: ['z'],
      maxInstances: 2,
      paused: true,
      replaceExisting: true,
    });
    expect(await ours(jobId)).toMatchObject({
      trigger: { cron: '15 6 * * *' },
      args: ['z'],
      policies: { maxInstances: 2 },
      editedOutside: false,
    });
    await scheduler.removeJob(jobId);
  });

  it('pauseJob and resumeJob set the state and the note', async () => {
    const jobId = await scheduler.scheduleInterval(greet, { jobId: t.uid('pause'), hours: 1 });
    expect((await ours(jobId)).paused).toBe(false);
    await scheduler.pauseJob(jobId, 'maintenance');
    expect(await ours(jobId)).toMatchObject({ paused: true, note: 'maintenance' });
    await scheduler.resumeJob(jobId);
    expect(await ours(jobId)).toMatchObject({ paused: false, note: 'resumed by temporal-flow' });
    await scheduler.removeJob(jobId);
  });

  it('reports the real trigger of a job edited in the Temporal UI/CLI, and flags it', async () => {
    const jobId = await scheduler.schedule(greet, {
      jobId: t.uid('edited'),
      cron: '0 2 * * *',
      timezone: 'Europe/Paris',
      paused: true,
    });
    // What the Temporal UI or `temporal schedule update` does: a new spec, the rest untouched.
    await t.client.schedule
      .getHandle(jobId)
      .update((d) => ({ ...d, spec: { cronExpressions: ['30 4 * * 1-5'], timezone: 'Europe/Paris' } }));
    const job = await ours(jobId);
    expect(job).toMatchObject({
      editedOutside: true,
      trigger: { cron: '30 4 * * 1-5', timezone: 'Europe/Paris' },
      givenTrigger: { cron: '0 2 * * *', timezone: 'Europe/Paris' },
    });
    // modifyJob keeps the edited spec (it never changes when) and adopts it as the job's trigger.
    await scheduler.modifyJob(jobId, { note: 'adopted' });
    expect(await ours(jobId)).toMatchObject({
      editedOutside: false,
      trigger: { cron: '30 4 * * 1-5', timezone: 'Europe/Paris' },
      note: 'adopted',
    });
    await scheduler.removeJob(jobId);
  });

  it('lists a schedule not created by temporal-flow as foreign and refuses to manage it', async () => {
    const id = t.uid('foreign');
    await t.client.schedule.create({
      scheduleId: id,
      spec: { intervals: [{ every: '1h' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'someoneElsesWorkflow',
        taskQueue: t.taskQueue,
        args: [],
      },
      state: { paused: true },
    });
    const listed = await waitFor('the foreign schedule in listJobs', async () =>
      (await scheduler.listJobs()).find((j) => j.id === id),
    );
    expect(listed).toMatchObject({ foreign: true, id, paused: true, workflowType: 'someoneElsesWorkflow' });
    expect(((await scheduler.getJob(id)) as ForeignJob).foreign).toBe(true);
    expect((await scheduler.listJobs({ includeForeign: false })).some((j) => j.id === id)).toBe(false);
    for (const verb of [
      () => scheduler.pauseJob(id),
      () => scheduler.resumeJob(id),
      () => scheduler.triggerJob(id),
      () => scheduler.removeJob(id),
      () => scheduler.rescheduleJob(id, { every: '2h' }),
      () => scheduler.modifyJob(id, { note: 'x' }),
      () => scheduler.backfillJob(id, { from: new Date(Date.now() - 60_000), to: new Date() }),
    ]) {
      const err = await verb().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ForeignScheduleError);
      expect((err as Error).message).toBe(
        `schedule "${id}" was not created by temporal-flow (it does not run pipelineWorkflow): manage it with the Temporal CLI or UI`,
      );
    }
    await t.client.schedule.getHandle(id).delete();
  });

  it('rejects bad arguments to the management verbs with typed errors', async () => {
    const jobId = await scheduler.scheduleInterval(greet, { jobId: t.uid('bad'), hours: 1, paused: true });
    await expect(scheduler.rescheduleJob(jobId, { cron: '0 0 * * * *' })).rejects.toThrow(
      /invalid cron "0 0 \* \* \* \*": it has 6 fields, which is ambiguous/,
    );
    await expect(scheduler.modifyJob(jobId, { maxInstances: 0 })).rejects.toThrow(
      'maxInstances must be a whole number of 1 or more, got 0',
    );
    await expect(scheduler.modifyJob(jobId, { cron: '0 2 * * *' } as never)).rejects.toThrow(
      /^unknown job option "cron"; allowed: maxInstances, coalesce/,
    );
    await expect(
      scheduler.backfillJob(jobId, { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }),
    ).rejects.toThrow('backfill "to" must be after "from"');
    await expect(scheduler.getHistory(jobId, { limit: 0 })).rejects.toThrow(
      'limit must be a whole number of 1 or more, got 0',
    );
    // Nothing changed by the refused calls.
    expect(await ours(jobId)).toMatchObject({ trigger: { hours: 1 }, policies: {} });
    await expect(scheduler.modifyJob('no-such-job', { note: 'x' })).rejects.toThrow(JobNotFoundError);
    await expect(scheduler.pauseJob('no-such-job')).rejects.toThrow('job "no-such-job" not found');
    await scheduler.removeJob(jobId);
  });
});

describe('history and stats', () => {
  it('getHistory lists runs newest first with status, nominal time and failure; getStats sums up', async () => {
    const okId = await scheduler.scheduleInterval(greet, {
      jobId: t.uid('hist-ok'),
      hours: 1,
      args: ['x'],
      paused: true,
    });
    const badId = await scheduler.scheduleInterval(explode, {
      jobId: t.uid('hist-bad'),
      hours: 1,
      args: ['y'],
      paused: true,
    });
    await scheduler.triggerJob(okId);
    // Once the schedule reports the run (strongly consistent), getHistory has it at once, and its outcome
    // as soon as it ends, however far visibility lags: such runs are described directly.
    const [recent] = await waitFor('the schedule to report the run', async () => {
      const job = await scheduler.getJob(okId);
      return job.recentRuns.length === 1 ? job.recentRuns : undefined;
    });
    expect((await scheduler.getHistory(okId)).map((r) => r.runId)).toContain(recent!.runId);
    await t.client.workflow.getHandle(recent!.workflowId, recent!.runId).result();
    expect((await scheduler.getHistory(okId))[0]).toMatchObject({
      runId: recent!.runId,
      status: 'completed',
    });
    await scheduler.triggerJob(okId);
    await scheduler.triggerJob(badId);
    const history = await waitFor('two completed runs', async () => {
      const runs = await scheduler.getHistory(okId);
      return runs.length === 2 && runs.every((r) => r.status === 'completed') ? runs : undefined;
    });
    expect(history[0]!.startedAt.getTime()).toBeGreaterThanOrEqual(history[1]!.startedAt.getTime());
    for (const run of history) {
      expect(run.workflowId.startsWith(`${okId}-`)).toBe(true);
      expect(run.scheduledAt).toBeInstanceOf(Date);
      expect(run.closedAt!.getTime()).toBeGreaterThanOrEqual(run.startedAt.getTime());
      expect(run.durationMs).toBe(run.closedAt!.getTime() - run.startedAt.getTime());
    }
    expect(await scheduler.getHistory(okId, { limit: 1 })).toEqual([history[0]]);

    const [failed] = await waitFor('the failed run', async () => {
      const runs = await scheduler.getHistory(badId);
      return runs[0]?.status === 'failed' ? runs : undefined;
    });
    expect(failed!.failure).toBe('pipeline "jobs-explode" failed at step "explode": cannot process y');

    const stats = await waitFor('stats that see the failing job', async () => {
      const s = await scheduler.getStats();
      return s.failingJobs.includes(badId) ? s : undefined;
    });
    expect(stats.failingJobs).not.toContain(okId);
    expect(stats.jobs).toBeGreaterThanOrEqual(2);
    expect(stats.paused).toBeGreaterThanOrEqual(2);
    await scheduler.removeJob(okId);
    await scheduler.removeJob(badId);
  });

  it('start, shutdown and await using', async () => {
    await using s = new PipelineScheduler(t.client, { taskQueue: t.taskQueue });
    await s.start();
    expect(s.timezone).toBe('UTC');
  });
});

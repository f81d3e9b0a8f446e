import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { JobNotFoundError } from '../../src/client/errors';
import { InvalidTriggerError } from '../../src/schedule/errors';
import { RunAtInPastError } from '../../src/schedule/one-off-due';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * A one-off whose runAt is already past used to become a schedule that never fires. Now it runs at once
 * when it is late by no more than misfireGraceTime (the job's, else the scheduler's), and is refused
 * otherwise, leaving nothing behind.
 */

const seen: string[] = [];
const steps = {
  async record(tag: string) {
    seen.push(tag);
    return tag;
  },
};

let t: TestContext;
let scheduler: PipelineScheduler;
const p = pipeline('past-run-at', { steps, timeout: '1m' }).step('record');

beforeAll(async () => {
  t = await connectTest('past-run-at');
  await t.startWorker(steps);
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => t?.close());

const secondsAgo = (s: number) => new Date(Date.now() - s * 1000);

/** The worker ran the job's step, then the job's clean-up deleted the spent one-off. */
async function ranOnceAndLeft(s: PipelineScheduler, jobId: string, tag: string, runAt: Date) {
  await waitFor(`the worker to run ${tag}`, async () => (seen.includes(tag) ? true : undefined));
  const [run] = await waitFor('the run in the history', async () => {
    const runs = await s.getHistory(jobId);
    return runs[0]?.status === 'completed' ? runs : undefined;
  });
  // The run stands for the runAt (its second), not for the moment it was created.
  expect(run?.scheduledAt?.toISOString()).toBe(
    new Date(Math.floor(runAt.getTime() / 1000) * 1000).toISOString(),
  );
  await waitFor('the spent one-off to be deleted', async () => {
    try {
      await s.getJob(jobId);
      return undefined;
    } catch (err) {
      if (err instanceof JobNotFoundError) return true;
      throw err;
    }
  });
  expect(seen.filter((x) => x === tag)).toHaveLength(1);
}

async function expectNoSchedule(jobId: string) {
  await expect(scheduler.getJob(jobId)).rejects.toBeInstanceOf(JobNotFoundError);
}

describe('scheduleAt with a runAt in the past', () => {
  it('runs at once when within the job misfireGraceTime', async () => {
    const runAt = secondsAgo(3);
    const jobId = await scheduler.scheduleAt(p, {
      jobId: t.uid('late'),
      runAt,
      misfireGraceTime: '1m',
      args: ['within-job-grace'],
    });
    await ranOnceAndLeft(scheduler, jobId, 'within-job-grace', runAt);
  });

  it("runs at once within the scheduler's misfireGraceTime, which jobs also get as their own", async () => {
    const lenient = new PipelineScheduler(t.client, {
      taskQueue: t.taskQueue,
      steps,
      misfireGraceTime: '1m',
    });
    const runAt = secondsAgo(5);
    const jobId = await lenient.scheduleAt(p, {
      jobId: t.uid('late'),
      runAt,
      args: ['within-scheduler-grace'],
    });
    await ranOnceAndLeft(lenient, jobId, 'within-scheduler-grace', runAt);

    const recurring = await lenient.schedule(p, {
      jobId: t.uid('defaults'),
      cron: '0 2 * * *',
      paused: true,
    });
    expect(await lenient.getJob(recurring)).toMatchObject({ policies: { misfireGraceTime: '1m' } });
    await lenient.removeJob(recurring);
  });

  it('runAt: new Date() runs at once without any misfireGraceTime', async () => {
    const runAt = new Date();
    const jobId = await scheduler.scheduleAt(p, { jobId: t.uid('now'), runAt, args: ['now'] });
    await ranOnceAndLeft(scheduler, jobId, 'now', runAt);
  });

  it('is refused beyond the grace, saying how late it is, and nothing is created', async () => {
    const jobId = t.uid('too-late');
    const runAt = secondsAgo(3600);
    const attempt = scheduler.scheduleAt(p, { jobId, runAt, misfireGraceTime: '10m', args: ['never'] });
    await expect(attempt).rejects.toBeInstanceOf(RunAtInPastError);
    await expect(attempt).rejects.toMatchObject({
      field: 'runAt',
      graceMs: 600_000,
      graceFrom: 'job',
      message: expect.stringMatching(
        new RegExp(
          `^runAt ${runAt.toISOString().replace(/[.]/g, '\\.')} is 1h in the past and the job's misfireGraceTime is 10m: give a runAt in the future, or pass misfireGraceTime: '2h' or more`,
        ),
      ) as unknown,
    });
    await expectNoSchedule(jobId);
  });

  it('is refused without a grace when more than a second late', async () => {
    const jobId = t.uid('no-grace');
    await expect(scheduler.scheduleAt(p, { jobId, runAt: secondsAgo(30) })).rejects.toThrow(
      /is 30s in the past and neither the job nor the scheduler sets misfireGraceTime/,
    );
    await expectNoSchedule(jobId);
  });

  it('is refused when the job would be created paused (it could never run)', async () => {
    const jobId = t.uid('paused');
    const attempt = scheduler.scheduleAt(p, {
      jobId,
      runAt: secondsAgo(2),
      misfireGraceTime: '1m',
      paused: true,
    });
    await expect(attempt).rejects.toBeInstanceOf(InvalidTriggerError);
    await expect(attempt).rejects.toMatchObject({ field: 'paused' });
    await expectNoSchedule(jobId);
  });

  it('replaceExisting with a past runAt rewrites the job and runs it at once', async () => {
    const jobId = await scheduler.schedule(p, { jobId: t.uid('replace'), cron: '0 2 * * *', args: ['old'] });
    const runAt = secondsAgo(2);
    await scheduler.scheduleAt(p, {
      jobId,
      runAt,
      misfireGraceTime: '1m',
      args: ['replaced-late'],
      replaceExisting: true,
    });
    await ranOnceAndLeft(scheduler, jobId, 'replaced-late', runAt);
  });
});

describe('rescheduleJob to a runAt in the past', () => {
  it('runs at once within the job misfireGraceTime', async () => {
    const jobId = await scheduler.scheduleAt(p, {
      jobId: t.uid('move-back'),
      runAt: new Date(Date.now() + 3_600_000),
      misfireGraceTime: '1m',
      args: ['rescheduled-late'],
    });
    const runAt = secondsAgo(2);
    await scheduler.rescheduleJob(jobId, { runAt });
    await ranOnceAndLeft(scheduler, jobId, 'rescheduled-late', runAt);
  });

  it('is refused beyond the grace and leaves the job as it was', async () => {
    const future = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000);
    const jobId = await scheduler.scheduleAt(p, {
      jobId: t.uid('keep'),
      runAt: future,
      misfireGraceTime: '10s',
      args: ['kept'],
    });
    await expect(scheduler.rescheduleJob(jobId, { runAt: secondsAgo(120) })).rejects.toThrow(
      /is 2m in the past and the job's misfireGraceTime is 10s: .* misfireGraceTime: '3m' or more/,
    );
    expect(await scheduler.getJob(jobId)).toMatchObject({
      trigger: { runAt: future.toISOString() },
      remainingActions: 1,
      nextRunTimes: [future],
    });
    await scheduler.removeJob(jobId);
  });
});

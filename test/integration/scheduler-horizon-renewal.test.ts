import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import type { ScheduledJobDescription } from '../../src/client/jobs/job-types';
import { renewJobHorizon } from '../../src/client/jobs/store/job-renewal';
import { updateJob, WRITES_MEMO_KEY } from '../../src/client/jobs/store/send-update';
import { modifyUpdate } from '../../src/client/jobs/store/build-updates';
import type { PipelineRunInput } from '../../src/workflows/run-types';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * The renewal of a job's horizon by its own runs, on the shared server with a real worker. A job is
 * written as if in March 2023 (modifyJob's update with an earlier `now`: the seam the renewal itself uses),
 * so its holidays are held until 2026 and its DST policy until March 2028; a run then renews it from today.
 * Renewals that race write once; a job without a horizon is never written by its runs.
 */

let t: TestContext;
let scheduler: PipelineScheduler;
const steps = { async noop() {} };
const p = pipeline('horizon-renewal', { steps }).step('noop');
const PAST = new Date('2023-03-01T00:00:00Z');
const year = new Date().getUTCFullYear();

beforeAll(async () => {
  t = await connectTest('horizon-renewal');
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
  await t.startWorker(steps);
});
afterAll(async () => t?.close());

const runInput = async (jobId: string) =>
  (await t.client.schedule.getHandle(jobId).describe()).action.args?.[0] as PipelineRunInput;
const writes = async (jobId: string) =>
  ((await t.client.schedule.getHandle(jobId).describe()).action.memo?.[WRITES_MEMO_KEY] as string[]) ?? [];
const heldUntil = async (jobId: string) =>
  ((await scheduler.getJob(jobId)) as ScheduledJobDescription).exclusionsHeldUntil;

/** Writes the job as if in March 2023. */
const writtenInThePast = (jobId: string) =>
  updateJob(t.client, jobId, (d) => modifyUpdate(jobId, d, { alerts: {}, policies: {} }, PAST));

/** Triggers one run of the job and waits for it to end. */
async function runOnce(jobId: string): Promise<void> {
  await scheduler.triggerJob(jobId);
  const workflowId = await waitFor('the triggered run', async () => {
    const d = await t.client.schedule.getHandle(jobId).describe();
    return d.info.recentActions[0]?.action.workflow.workflowId;
  });
  await t.client.workflow.getHandle(workflowId).result();
}

const horizonTrigger = {
  cron: '30 1 * * *',
  timezone: 'Europe/Paris',
  exclude: { holidays: 'FR' },
  dst: { gap: 'shift', overlap: 'once' },
} as const;

describe('the horizon of a job is renewed by its runs', () => {
  it('a run of a job whose horizon ends within a year extends its holidays and DST policy', async () => {
    const jobId = t.uid('renew');
    await scheduler.schedule(p, { jobId, ...horizonTrigger });
    try {
      await writtenInThePast(jobId);
      const before = await runInput(jobId);
      expect(before.job?.horizonEnd).toBe('2027-01-01T00:00:00.000Z');
      expect(await heldUntil(jobId)).toBe(2026);
      // A fall-back day's skip each October, up to the DST horizon (March 2028).
      const octoberSkip = (skips: string[] | undefined, y: number) =>
        (skips ?? []).some((s) => s.startsWith(`${y}-10-`));
      expect(octoberSkip(before.job?.dstSkips, 2027)).toBe(true);
      expect(octoberSkip(before.job?.dstSkips, 2028)).toBe(false);

      await runOnce(jobId);

      const after = await runInput(jobId);
      expect(after.job?.horizonEnd).toBe(`${year + 4}-01-01T00:00:00.000Z`);
      expect(await heldUntil(jobId)).toBe(year + 3);
      // The DST policy is compiled again from today: its skips reach years past the old horizon.
      expect(octoberSkip(after.job?.dstSkips, year + 4)).toBe(true);
      const job = (await scheduler.getJob(jobId)) as ScheduledJobDescription;
      expect(job.editedOutside).toBe(false);
      expect(job.trigger).toMatchObject(horizonTrigger);
    } finally {
      await scheduler.removeJob(jobId);
    }
  }, 60_000);

  it('renewals that race write once; one that finds the job renewed writes nothing', async () => {
    const jobId = t.uid('race');
    await scheduler.schedule(p, { jobId, ...horizonTrigger, paused: true });
    try {
      await writtenInThePast(jobId);
      const writesBefore = await writes(jobId);
      const results = await Promise.all([renewJobHorizon(t.client, jobId), renewJobHorizon(t.client, jobId)]);
      expect(results.filter((r) => r.renewed)).toEqual([
        { renewed: true, horizonEnd: `${year + 4}-01-01T00:00:00.000Z` },
      ]);
      expect(results.filter((r) => !r.renewed)).toEqual([{ renewed: false, reason: 'not-due' }]);
      const writesAfter = await writes(jobId);
      expect(writesAfter.slice(0, -1)).toEqual(writesBefore);
      expect(writesAfter).toHaveLength(writesBefore.length + 1);
      expect(await heldUntil(jobId)).toBe(year + 3);
      expect(await renewJobHorizon(t.client, jobId)).toEqual({ renewed: false, reason: 'not-due' });
      expect(await writes(jobId)).toEqual(writesAfter);
    } finally {
      await scheduler.removeJob(jobId);
    }
  }, 60_000);

  it('two runs that start together both ask, and the job is written once', async () => {
    const jobId = t.uid('runs');
    await scheduler.schedule(p, { jobId, ...horizonTrigger, overlap: 'ALLOW_ALL', paused: true });
    try {
      await writtenInThePast(jobId);
      const writesBefore = await writes(jobId);
      // Two past occurrences (01:30 Paris on 25 and 26 November 2026, no holidays), started at once.
      await scheduler.backfillJob(jobId, { from: '2026-11-24T12:00:00Z', to: '2026-11-26T12:00:00Z' });
      const runs = await waitFor('the two backfilled runs', async () => {
        const d = await t.client.schedule.getHandle(jobId).describe();
        const ids = d.info.recentActions.map((a) => a.action.workflow.workflowId);
        return ids.length === 2 ? ids : undefined;
      });
      for (const id of runs) {
        const handle = t.client.workflow.getHandle(id);
        await handle.result();
        const history = await handle.fetchHistory();
        const asked = history.events?.filter(
          (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'tflowRenewHorizon',
        );
        expect(asked).toHaveLength(1);
      }
      const writesAfter = await writes(jobId);
      expect(writesAfter.slice(0, -1)).toEqual(writesBefore);
      expect(writesAfter).toHaveLength(writesBefore.length + 1);
      expect(await heldUntil(jobId)).toBe(year + 3);
    } finally {
      await scheduler.removeJob(jobId);
    }
  }, 60_000);

  it('a job whose spec was edited outside temporal-flow is not renewed (nor its edit adopted)', async () => {
    const jobId = t.uid('outside');
    await scheduler.schedule(p, { jobId, ...horizonTrigger, paused: true });
    try {
      await writtenInThePast(jobId);
      await t.client.schedule.getHandle(jobId).update((prev) => ({
        ...prev,
        spec: { cronExpressions: ['0 5 * * *'], timezone: 'Europe/Paris' },
      }));
      const before = await t.client.schedule.getHandle(jobId).describe();
      expect(await renewJobHorizon(t.client, jobId)).toEqual({ renewed: false, reason: 'edited-outside' });
      const after = await t.client.schedule.getHandle(jobId).describe();
      expect(after.action.memo).toEqual(before.action.memo);
      expect(after.spec).toEqual(before.spec);
      expect(((await scheduler.getJob(jobId)) as ScheduledJobDescription).givenTrigger).toMatchObject({
        exclude: { holidays: 'FR' },
      });
    } finally {
      await scheduler.removeJob(jobId);
    }
  }, 60_000);

  it('a run of a job without a horizon leaves its schedule as it is', async () => {
    const jobId = t.uid('plain');
    await scheduler.schedule(p, { jobId, cron: '0 3 * * *', exclude: '2030-01-01', businessDays: true });
    try {
      const before = await t.client.schedule.getHandle(jobId).describe();
      expect((before.action.args?.[0] as PipelineRunInput).job).not.toHaveProperty('horizonEnd');
      await runOnce(jobId);
      expect(await renewJobHorizon(t.client, jobId)).toEqual({ renewed: false, reason: 'not-due' });
      const after = await t.client.schedule.getHandle(jobId).describe();
      expect(after.action.memo?.[WRITES_MEMO_KEY]).toEqual(before.action.memo?.[WRITES_MEMO_KEY]);
      expect(after.spec).toEqual(before.spec);
    } finally {
      await scheduler.removeJob(jobId);
    }
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msToTs, tsToMs } from '@temporalio/common/lib/time';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import type { ScheduledJobDescription } from '../../src/client/jobs/job-types';
import type { PipelineRunInput } from '../../src/workflows/run-types';
import { connectTest, type TestContext } from '../helpers/temporal';

/*
 * A job's DST policy through the scheduler: the scheduler-wide default is stored with the job, the
 * schedule gets the policy's entries and its runs the `dst` skips, the job does not read as edited
 * outside temporal-flow, and a reschedule and a modify keep it all. What the server will start in
 * 2027 (ListScheduleMatchingTimes less the skips) is what `preview` says.
 */

let t: TestContext;
let scheduler: PipelineScheduler;
const steps = { async noop() {} };
const p = pipeline('dst-policy-job', { steps }).step('noop');

beforeAll(async () => {
  t = await connectTest('dst-policy-job');
  scheduler = new PipelineScheduler(t.client, {
    taskQueue: t.taskQueue,
    steps,
    dst: { gap: 'shift', overlap: 'once' },
  });
});
afterAll(async () => t?.close());

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

async function startedIn(jobId: string, from: string, to: string): Promise<string[]> {
  const raw = await t.client.schedule.getHandle(jobId).describe();
  const skips = new Set((raw.action.args?.[0] as PipelineRunInput).job?.dstSkips ?? []);
  const res = await t.connection.workflowService.listScheduleMatchingTimes({
    namespace: t.namespace,
    scheduleId: jobId,
    startTime: msToTs(Date.parse(from)),
    endTime: msToTs(Date.parse(to)),
  });
  return (res.startTime ?? []).map((ts) => iso(tsToMs(ts))).filter((s) => !skips.has(s));
}

describe('DST policy on a scheduled job', () => {
  it('applies the default, survives reschedule and modify, and the server starts what preview lists', async () => {
    const jobId = t.uid('dst-job');
    await scheduler.schedule(p, { jobId, cron: '30 1 * * *', timezone: 'Europe/Paris', paused: true });
    try {
      const job = (await scheduler.getJob(jobId)) as ScheduledJobDescription;
      expect(job.editedOutside).toBe(false);
      expect(job.trigger).toMatchObject({ dst: { gap: 'shift', overlap: 'once' } });
      const raw = await t.client.schedule.getHandle(jobId).describe();
      // Paris 01:30 on the fall-back day: Temporal's extra 02:30 CEST is a guard skip.
      expect((raw.action.args?.[0] as PipelineRunInput).job?.dstSkips).toContain('2027-10-31T00:30:00Z');
      const [from, to] = ['2027-10-29T00:00:00Z', '2027-11-02T00:00:00Z'];
      const preview = scheduler
        .preview({ cron: '30 1 * * *', timezone: 'Europe/Paris' }, 10, { from })
        .fireTimes.map((f) => f.utc)
        .filter((u) => u <= to);
      expect(await startedIn(jobId, from, to)).toEqual(preview);

      await scheduler.rescheduleJob(jobId, { cron: '30 2 * * *', timezone: 'Europe/Paris' });
      await scheduler.modifyJob(jobId, { note: 'edited' });
      expect(((await scheduler.getJob(jobId)) as ScheduledJobDescription).editedOutside).toBe(false);
      const [gapFrom, gapTo] = ['2027-03-26T00:00:00Z', '2027-03-30T00:00:00Z'];
      const started = await startedIn(jobId, gapFrom, gapTo);
      expect(started).toContain('2027-03-28T01:00:00Z'); // 02:30 shifted to 03:00 CEST
      expect(started).toEqual(
        scheduler
          .preview({ cron: '30 2 * * *', timezone: 'Europe/Paris' }, 10, { from: gapFrom })
          .fireTimes.map((f) => f.utc)
          .filter((u) => u <= gapTo),
      );
    } finally {
      await scheduler.removeJob(jobId);
    }
  }, 60_000);
});

import { msToTs, tsToMs } from '@temporalio/common/lib/time';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { pipeline } from '../../src/pipeline';
import { connectTest, type TestContext } from '../helpers/temporal';

/*
 * The default correction of a weekday Temporal misreads (src/schedule/weekday-misread.ts), on the dev
 * server: a `30 2 * * 0` job in America/Santiago fires on Sunday 2027-09-05 (Temporal alone takes that day
 * for a Saturday); `dst: {}` keeps the raw reading; a job written before the change (its spec without the
 * correction's entries) reads as not edited outside and keeps the raw reading.
 */

let t: TestContext;
let scheduler: PipelineScheduler;
const steps = {
  async report() {
    return 'sent';
  },
};
const weekly = pipeline('misread-weekly', { steps }).step('report');
const SUNDAY = '2027-09-05T05:30:00Z'; // 02:30 -03:00

beforeAll(async () => {
  t = await connectTest('misread');
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => t?.close());

async function septemberTimes(jobId: string): Promise<string[]> {
  const res = await t.connection.workflowService.listScheduleMatchingTimes({
    namespace: t.namespace,
    scheduleId: jobId,
    startTime: msToTs(Date.parse('2027-08-30T00:00:00Z')),
    endTime: msToTs(Date.parse('2027-09-14T00:00:00Z')),
  });
  return (res.startTime ?? []).map((ts) => new Date(tsToMs(ts)).toISOString().replace('.000Z', 'Z'));
}

it('by default the Sunday runs; dst: {} keeps the raw reading; a job written before reads unedited', async () => {
  const corrected = t.uid('misread-default');
  const raw = t.uid('misread-raw');
  const trigger = { cron: '30 2 * * 0', timezone: 'America/Santiago' };
  await scheduler.schedule(weekly, { ...trigger, jobId: corrected, paused: true });
  await scheduler.schedule(weekly, { ...trigger, dst: {}, jobId: raw, paused: true });
  try {
    expect(await septemberTimes(corrected)).toEqual(['2027-09-05T05:30:00Z', '2027-09-12T05:30:00Z']);
    expect(await septemberTimes(raw)).toEqual(['2027-09-12T05:30:00Z']);
    const job = await scheduler.getJob(corrected);
    expect(job).toMatchObject({ foreign: false, editedOutside: false, trigger });

    // As a job written before the change: the raw spec, no correction entries.
    await t.client.schedule.getHandle(corrected).update((d) => ({
      ...d,
      spec: { cronExpressions: ['30 2 * * 0'], timezone: 'America/Santiago' },
      searchAttributes: undefined,
    }));
    expect(await septemberTimes(corrected)).not.toContain(SUNDAY);
    expect(await scheduler.getJob(corrected)).toMatchObject({ editedOutside: false, trigger });
  } finally {
    await scheduler.removeJob(corrected);
    await scheduler.removeJob(raw);
  }
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msToTs, tsToMs } from '@temporalio/common/lib/time';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { JobNotFoundError } from '../../src/client/errors';
import type { PipelineRunInput } from '../../src/workflows/run-types';
import { connectTest, type TestContext } from '../helpers/temporal';
import { tflow } from '../helpers/cli';

/*
 * scheduler.dryRun(jobId, window) on real jobs: the occurrences it lists are exactly the server's
 * ListScheduleMatchingTimes for the schedule as written (DST policy entries, guard skips, exclusions,
 * endAt included), and the `dst` skips are exactly the fires whose runs carry them in `dstSkips`. The jobs'
 * windows are in 2027, so nothing runs while the test reads them.
 */

let t: TestContext;
let scheduler: PipelineScheduler;
const steps = { async noop() {} };
const p = pipeline('dry-run-job', { steps }).step('noop');

beforeAll(async () => {
  t = await connectTest('dry-run-job');
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => t?.close());

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

async function matchingTimes(jobId: string, from: string, to: string): Promise<string[]> {
  const res = await t.connection.workflowService.listScheduleMatchingTimes({
    namespace: t.namespace,
    scheduleId: jobId,
    startTime: msToTs(Date.parse(from)),
    endTime: msToTs(Date.parse(to)),
  });
  return (res.startTime ?? []).map((ts) => iso(tsToMs(ts)));
}

describe('scheduler.dryRun on a real job', () => {
  it('lists the times ListScheduleMatchingTimes gives, the DST skips as the runs will take them', async () => {
    const jobId = t.uid('dry-cron');
    await scheduler.schedule(p, {
      jobId,
      cron: '30 1 * * *',
      timezone: 'Europe/Paris',
      dst: { gap: 'shift', overlap: 'once' },
      exclude: '2027-10-30',
      misfireGraceTime: '10m',
    });
    try {
      const [from, to] = ['2027-10-25T00:00:00Z', '2027-11-04T00:00:00Z'];
      const r = await scheduler.dryRun(jobId, { from, to });
      const server = await matchingTimes(jobId, from, to);
      expect(server.length).toBeGreaterThan(5);
      expect(r.occurrences.map((o) => o.nominal)).toEqual(server);
      const skips = r.occurrences.filter((o) => o.reason === 'dst').map((o) => o.nominal);
      expect(skips).toEqual(['2027-10-31T00:30:00Z']); // Temporal's extra 02:30 CEST on the fall-back day
      const raw = await t.client.schedule.getHandle(jobId).describe();
      const written = (raw.action.args?.[0] as PipelineRunInput).job?.dstSkips ?? [];
      expect(written.filter((s) => s > from && s <= to)).toEqual(skips);
      expect(r.excludedDates.map((d) => d.date)).toEqual(['2027-10-30']);
      expect(r.policies).toMatchObject({ overlap: 'SKIP', misfireGraceMs: 600_000 });

      // No worker for two nights (01:30 Paris is 23:30Z): the first night's run waits, stands for the second, past the grace.
      const outage = await scheduler.dryRun(jobId, {
        from,
        to,
        workersDown: [{ from: '2027-10-25T23:00:00Z', to: '2027-10-27T00:00:00Z' }],
      });
      expect(outage.occurrences.slice(0, 2)).toMatchObject([
        {
          nominal: '2027-10-25T23:30:00Z',
          decision: 'skip',
          reason: 'misfire',
          standsFor: '2027-10-26T23:30:00Z', // 30 min before the workers are back
        },
        { nominal: '2027-10-26T23:30:00Z', decision: 'coalesced', coalescedInto: '2027-10-25T23:30:00Z' },
      ]);

      const printed = await tflow(['jobs', 'dry-run', jobId, '--from', from, '--to', to, '--json']);
      expect(
        (JSON.parse(printed) as { occurrences: { nominal: string }[] }).occurrences.map((o) => o.nominal),
      ).toEqual(server);
    } finally {
      await scheduler.removeJob(jobId);
    }
  }, 60_000);

  it('an interval job with endAt: the same times as the server, and a paused job skips them all', async () => {
    const jobId = t.uid('dry-every');
    await scheduler.scheduleInterval(p, {
      jobId,
      every: '7m',
      endAt: '2027-01-01T02:00:00Z',
      paused: true,
    });
    try {
      const [from, to] = ['2027-01-01T00:00:00Z', '2027-01-01T03:00:00Z'];
      const r = await scheduler.dryRun(jobId, { from, to });
      expect(r.occurrences.map((o) => o.nominal)).toEqual(await matchingTimes(jobId, from, to));
      expect(r.occurrences.at(-1)!.nominal <= '2027-01-01T02:00:00Z').toBe(true);
      expect(new Set(r.occurrences.map((o) => o.reason))).toEqual(new Set(['paused']));
    } finally {
      await scheduler.removeJob(jobId);
    }
  }, 60_000);

  it("job options get the scheduler's defaults as schedule() gives them: the same dry run as the job read back", async () => {
    const withDefaults = new PipelineScheduler(t.client, {
      taskQueue: t.taskQueue,
      steps,
      timezone: 'Europe/Paris',
      dst: { gap: 'shift' },
      misfireGraceTime: '5m',
    });
    const options = { cron: '30 2 * * *' };
    const jobId = t.uid('dry-defaults');
    await withDefaults.schedule(p, { jobId, cron: options.cron });
    try {
      const window = {
        from: '2027-03-26T00:00:00Z',
        to: '2027-03-30T00:00:00Z',
        workersDown: [{ from: '2027-03-27T01:00:00Z', to: '2027-03-27T01:40:00Z' }],
      };
      const fromOptions = await withDefaults.dryRun({ cron: options.cron }, window);
      expect(fromOptions).toEqual(await withDefaults.dryRun(jobId, window));
      expect(fromOptions.policies.misfireGraceMs).toBe(300_000);
      expect(fromOptions.occurrences.map((o) => `${o.local} ${o.decision}`)).toEqual([
        '2027-03-26T02:30:00+01:00 run',
        '2027-03-27T02:30:00+01:00 skip', // judged at 02:40: 10 min late, past the 5 min grace
        '2027-03-28T03:00:00+02:00 run', // dst.gap 'shift'
        '2027-03-29T02:30:00+02:00 run',
      ]);
    } finally {
      await withDefaults.removeJob(jobId);
    }
  }, 60_000);

  it('an unknown job is JobNotFoundError; a bad window is refused first', async () => {
    const window = { from: '2027-01-01T00:00:00Z', to: '2027-01-02T00:00:00Z' };
    await expect(scheduler.dryRun(t.uid('missing'), window)).rejects.toBeInstanceOf(JobNotFoundError);
    // A bad window is refused before the job is read: the error is the window's, not the missing job's.
    const backwards = { from: window.to, to: window.from };
    await expect(scheduler.dryRun(t.uid('missing'), backwards)).rejects.toMatchObject({
      code: 'INVALID_WINDOW',
      field: 'to',
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/pipeline-scheduler';
import type { ScheduledJobDescription } from '../../src/client/job-types';
import { WRITES_MEMO_KEY } from '../../src/client/job-update';
import type { DstPolicy } from '../../src/schedule/dst-policy';
import { SCHEDULED_START_TIME_ATTRIBUTE } from '../../src/workflows/search-attributes';
import type { PipelineRunInput, PipelineRunResult } from '../../src/workflows/run-types';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * A backfill of a job with a DST policy starts exactly the runs `preview` lists for the window, past
 * dates included (the policy's entries are compiled from the job's last write onwards, so a window before
 * it got Temporal's own behaviour): on a real server with a real worker, the nominal times
 * (TemporalScheduledStartTime) of the runs the backfill started, each of which ran its step, equal
 * preview's for the window. Each side of the policy is tried with both values, on a day where it changes
 * what Temporal does; a 2027 window (inside the horizon) and a job without a policy are the controls.
 * Temporal works through a schedule's backfills in the order they were asked, so a second backfill of an
 * ordinary day, asked after the window's, tells when the window's runs have all started.
 */

let t: TestContext;
let scheduler: PipelineScheduler;
const steps = { async noop() {} };
const p = pipeline('dst-backfill', { steps }).step('noop');

beforeAll(async () => {
  t = await connectTest('dst-backfill');
  await t.startWorker(steps);
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => t?.close());

/** An ordinary day (no clock change anywhere near): each job below runs once in it. */
const MARKER = { from: '2026-06-10T00:00:00Z', to: '2026-06-11T00:00:00Z' };

const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');

interface Run {
  nominal: string;
  status: PipelineRunResult['status'];
}

/** Backfills the window, then the marker day; returns the window's runs once the marker's has started. */
async function backfilled(jobId: string, window: { from: string; to: string }): Promise<Run[]> {
  await scheduler.backfillJob(jobId, window);
  await scheduler.backfillJob(jobId, MARKER);
  const inMarker = (s: string) => s > MARKER.from && s <= MARKER.to;
  const started = await waitFor(
    'the marker day to be backfilled',
    async () => {
      const d = await t.client.schedule.getHandle(jobId).describe();
      const runs = d.info.recentActions.map((a) => a.action.workflow);
      const nominals = await Promise.all(
        runs.map(async (w) => {
          const desc = await t.client.workflow.getHandle(w.workflowId, w.firstExecutionRunId).describe();
          return { ...w, nominal: iso(desc.typedSearchAttributes.get(SCHEDULED_START_TIME_ATTRIBUTE)!) };
        }),
      );
      return nominals.some((r) => inMarker(r.nominal)) ? nominals : undefined;
    },
    60_000,
  );
  const runs = await Promise.all(
    started
      .filter((r) => !inMarker(r.nominal))
      .map(async (r) => {
        const result = (await t.client.workflow
          .getHandle(r.workflowId, r.firstExecutionRunId)
          .result()) as PipelineRunResult;
        return { nominal: r.nominal, status: result.status };
      }),
  );
  return runs.sort((a, b) => (a.nominal < b.nominal ? -1 : 1));
}

interface Case {
  what: string;
  cron: string;
  timezone: string;
  dst?: DstPolicy;
  window: { from: string; to: string };
  /** What preview lists for the window (checked against preview too): the policy's promise, spelt out. */
  expected: string[];
}

const cases: Case[] = [
  {
    what: 'gap shift: Paris 02:30 on 2026-03-29 runs at 03:00 CEST',
    cron: '30 2 * * *',
    timezone: 'Europe/Paris',
    dst: { gap: 'shift' },
    window: { from: '2026-03-28T12:00:00Z', to: '2026-03-30T12:00:00Z' },
    expected: ['2026-03-29T01:00:00Z', '2026-03-30T00:30:00Z'],
  },
  {
    what: 'gap skip: Paris 02:30 on 2026-03-29 does not run',
    cron: '30 2 * * *',
    timezone: 'Europe/Paris',
    dst: { gap: 'skip' },
    window: { from: '2026-03-28T12:00:00Z', to: '2026-03-30T12:00:00Z' },
    expected: ['2026-03-30T00:30:00Z'],
  },
  {
    what: 'overlap once: New York 01:30 on 2026-11-01 runs at 01:30 EDT only',
    cron: '30 1 * * *',
    timezone: 'America/New_York',
    dst: { overlap: 'once' },
    window: { from: '2026-10-31T12:00:00Z', to: '2026-11-02T12:00:00Z' },
    expected: ['2026-11-01T05:30:00Z', '2026-11-02T06:30:00Z'],
  },
  {
    what: 'overlap twice: New York 01:30 on 2026-11-01 runs at 01:30 EDT and EST',
    cron: '30 1 * * *',
    timezone: 'America/New_York',
    dst: { overlap: 'twice' },
    window: { from: '2026-10-31T12:00:00Z', to: '2026-11-02T12:00:00Z' },
    expected: ['2026-11-01T05:30:00Z', '2026-11-01T06:30:00Z', '2026-11-02T06:30:00Z'],
  },
  {
    // Temporal names 02:15 on the Paris fall-back day in CET only: the CEST run is one it never fires.
    what: 'overlap once: Paris 02:15 on 2026-10-25 runs at 02:15 CEST, not CET',
    cron: '15 2 * * *',
    timezone: 'Europe/Paris',
    dst: { overlap: 'once' },
    window: { from: '2026-10-24T12:00:00Z', to: '2026-10-26T12:00:00Z' },
    expected: ['2026-10-25T00:15:00Z', '2026-10-26T01:15:00Z'],
  },
  {
    what: 'overlap twice: Paris 02:15 on 2026-10-25 runs at 02:15 CEST and CET',
    cron: '15 2 * * *',
    timezone: 'Europe/Paris',
    dst: { overlap: 'twice' },
    window: { from: '2026-10-24T12:00:00Z', to: '2026-10-26T12:00:00Z' },
    expected: ['2026-10-25T00:15:00Z', '2026-10-25T01:15:00Z', '2026-10-26T01:15:00Z'],
  },
  {
    // From 06:00Z Temporal's next fire is 01:30 EST (06:30Z): a time the policy does not run.
    what: 'overlap once, a window that starts inside the repeated hour (New York, 2026-11-01 06:00Z)',
    cron: '30 1 * * *',
    timezone: 'America/New_York',
    dst: { overlap: 'once' },
    window: { from: '2026-11-01T06:00:00Z', to: '2026-11-02T12:00:00Z' },
    expected: ['2026-11-02T06:30:00Z'],
  },
  {
    what: 'control, inside the horizon: gap shift on 2027-03-28',
    cron: '30 2 * * *',
    timezone: 'Europe/Paris',
    dst: { gap: 'shift' },
    window: { from: '2027-03-27T12:00:00Z', to: '2027-03-29T12:00:00Z' },
    expected: ['2027-03-28T01:00:00Z', '2027-03-29T00:30:00Z'],
  },
  {
    what: "control, no policy: Temporal's own behaviour (Paris 02:30 on 2026-03-29 skipped)",
    cron: '30 2 * * *',
    timezone: 'Europe/Paris',
    window: { from: '2026-03-28T12:00:00Z', to: '2026-03-30T12:00:00Z' },
    expected: ['2026-03-30T00:30:00Z'],
  },
];

describe('backfillJob on a job with a DST policy', () => {
  it.each(cases)(
    'starts what preview lists: $what',
    async (c) => {
      const trigger = { cron: c.cron, timezone: c.timezone, ...(c.dst ? { dst: c.dst } : {}) };
      const preview = scheduler
        .preview(trigger, 10, { from: c.window.from })
        .fireTimes.map((f) => f.utc)
        .filter((u) => u <= c.window.to);
      expect(preview).toEqual(c.expected);
      const jobId = t.uid('dst-backfill');
      await scheduler.schedule(p, { jobId, ...trigger, overlap: 'ALLOW_ALL', paused: true });
      try {
        const runs = await backfilled(jobId, c.window);
        expect(runs.map((r) => r.nominal)).toEqual(preview);
        expect(runs.every((r) => r.status === 'completed')).toBe(true);
      } finally {
        await scheduler.removeJob(jobId);
      }
    },
    120_000,
  );
});

describe('the write a DST backfill makes', () => {
  it('adds the window’s entries and skips once, leaves the job as it reads, and the next write drops them', async () => {
    const jobId = t.uid('dst-backfill-write');
    const trigger = { cron: '15 2 * * *', timezone: 'Europe/Paris', dst: { overlap: 'twice' as const } };
    const window = { from: '2026-10-24T12:00:00Z', to: '2026-10-26T12:00:00Z' };
    await scheduler.schedule(p, { jobId, ...trigger, overlap: 'ALLOW_ALL', paused: true });
    const raw = () => t.client.schedule.getHandle(jobId).describe();
    // The interval entries naming instants before now (the horizon's name the next five years).
    const pastEntries = (intervals: { every: number; offset: number }[] | undefined) =>
      (intervals ?? [])
        .map((i) => Number(i.every))
        .filter((ms) => ms < Date.now())
        .map((ms) => new Date(ms).toISOString());
    const writes = async () => ((await raw()).action.memo?.[WRITES_MEMO_KEY] as string[] | undefined) ?? [];
    try {
      const before = (await scheduler.getJob(jobId)) as ScheduledJobDescription;
      const writesBefore = await writes();
      expect((await backfilled(jobId, window)).map((r) => r.nominal)).toEqual([
        '2026-10-25T00:15:00Z',
        '2026-10-25T01:15:00Z',
        '2026-10-26T01:15:00Z',
      ]);
      // Both 02:15s of the fall-back day are instants Temporal only fires as interval entries (dst-compile.ts),
      // whose second matches (in 2083) the runs skip.
      const d = await raw();
      expect(pastEntries(d.spec.intervals)).toEqual(['2026-10-25T00:15:00.000Z', '2026-10-25T01:15:00.000Z']);
      expect((d.action.args?.[0] as PipelineRunInput).job?.dstSkips).toEqual(
        expect.arrayContaining(['2083-08-18T00:30:00Z', '2083-08-18T02:30:00Z']),
      );
      expect(await writes()).toHaveLength(writesBefore.length + 1);
      const after = (await scheduler.getJob(jobId)) as ScheduledJobDescription;
      expect(after.editedOutside).toBe(false);
      expect(after.trigger).toEqual(before.trigger);
      expect(before.nextRunTimes.length).toBeGreaterThan(0);
      expect(after.nextRunTimes).toEqual(before.nextRunTimes);
      // The spec has the window's entries now: backfilling the window again writes nothing.
      const writesAfter = await writes();
      await scheduler.backfillJob(jobId, window);
      expect(await writes()).toEqual(writesAfter);
      // A write of the job compiles its spec from that moment: the past entries go.
      await scheduler.modifyJob(jobId, { note: 'edited' });
      expect(pastEntries((await raw()).spec.intervals)).toEqual([]);
    } finally {
      await scheduler.removeJob(jobId);
    }
  }, 120_000);
});

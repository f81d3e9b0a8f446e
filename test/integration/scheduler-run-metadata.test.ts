import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors';
import { JobNotFoundError } from '../../src/client/errors';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { SCHEDULED_BY_ID_ATTRIBUTE } from '../../src/workflows/search-attributes';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import { cliScheduleUpdate, temporalCli } from '../helpers/temporal-cli';

/*
 * `PipelineScheduler({ runMetadata: false })`: scheduled runs without their summary and details for the
 * Temporal UI (issue 35's switch for the user metadata every fired run carries). The choice is the job's:
 * kept by modifyJob, by a replace from a scheduler that sets no runMetadata (`tflow apply`), and by an edit
 * made with the `temporal` CLI followed by a write of ours; a scheduler that sets it and replaces the job
 * changes it.
 */

const steps = {
  async double(x: number) {
    return x * 2;
  },
};
const p = pipeline('run-metadata', { steps }).step('double');

let t: TestContext;
let quiet: PipelineScheduler;
let plain: PipelineScheduler;

beforeAll(async () => {
  t = await connectTest('run-metadata');
  await t.startWorker(steps);
  quiet = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps, runMetadata: false });
  plain = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => {
  await t?.close();
});

/** The schedule's action's user metadata (what every run it starts gets). */
async function actionMetadata(jobId: string) {
  const d = await t.client.schedule.getHandle(jobId).describe();
  const action = d.action as { staticSummary?: string; staticDetails?: string };
  return { summary: action.staticSummary, details: action.staticDetails };
}

/** Triggers the job and returns its run's summary, as the Temporal UI reads it. */
async function firedRunSummary(scheduler: PipelineScheduler, jobId: string): Promise<string | undefined> {
  const before = new Set<string>();
  const query = `${SCHEDULED_BY_ID_ATTRIBUTE.name} = '${jobId}'`;
  for await (const wf of t.client.workflow.list({ query })) before.add(wf.runId);
  await scheduler.triggerJob(jobId);
  const run = await waitFor('the triggered run listed', async () => {
    for await (const wf of t.client.workflow.list({ query })) if (!before.has(wf.runId)) return wf;
    return undefined;
  });
  const handle = t.client.workflow.getHandle(run.workflowId, run.runId);
  await handle.result();
  return (await handle.describe()).staticSummary();
}

describe('PipelineScheduler runMetadata: false', () => {
  it('creates jobs whose runs carry no UI summary or details; a default scheduler does', async () => {
    const off = t.uid('meta-off');
    const on = t.uid('meta-on');
    await quiet.scheduleInterval(p, { jobId: off, every: '1h', args: [1], paused: true });
    await plain.scheduleInterval(p, { jobId: on, every: '1h', args: [1], paused: true });
    try {
      expect(await actionMetadata(off)).toEqual({ summary: undefined, details: undefined });
      expect(await actionMetadata(on)).toEqual({
        summary: `run-metadata (job ${on})`,
        details: expect.stringContaining('1. double') as unknown,
      });
      expect(await firedRunSummary(quiet, off)).toBeUndefined();
      expect(await firedRunSummary(plain, on)).toBe(`run-metadata (job ${on})`);
      // The job says so; the rest of it reads the same either way.
      const [jobOff, jobOn] = [await plain.getJob(off), await plain.getJob(on)];
      expect(!jobOff.foreign && jobOff.runMetadata).toBe(false);
      expect(jobOn).not.toHaveProperty('runMetadata');
      expect(!jobOff.foreign && jobOff.trigger).toEqual({ every: '1h' });
    } finally {
      await plain.removeJob(off);
      await plain.removeJob(on);
    }
  });

  it("is the job's choice: kept by modifyJob, by a replace that sets none, and across an edit made with the temporal CLI", async () => {
    const jobId = t.uid('meta-kept');
    await quiet.scheduleInterval(p, { jobId, every: '1h', args: [1], paused: true });
    try {
      // modifyJob from a scheduler that sets no runMetadata.
      await plain.modifyJob(jobId, { args: [2], note: 'modified' });
      expect(await actionMetadata(jobId)).toEqual({ summary: undefined, details: undefined });
      // A replace by a scheduler that sets none (what `tflow apply` of a changed job does).
      await plain.scheduleInterval(p, { jobId, every: '2h', args: [3], paused: true, replaceExisting: true });
      expect(await actionMetadata(jobId)).toEqual({ summary: undefined, details: undefined });
      // The CLI in its help's form replaces the action and its memo; the next write of ours keeps the choice
      // (the record's listed copy in the TflowJob search attribute says it).
      await cliScheduleUpdate(t.client, t.namespace, jobId, t.taskQueue, ['--interval', '3h', '--paused']);
      await waitFor('the CLI edit applied', async () => {
        const job = await plain.getJob(jobId);
        return !job.foreign && job.editedOutside ? job : undefined;
      });
      await plain.modifyJob(jobId, { note: 'after the CLI edit' });
      expect(await actionMetadata(jobId)).toEqual({ summary: undefined, details: undefined });
      // A scheduler that sets it, replacing the job, turns it back on.
      const loud = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps, runMetadata: true });
      await loud.scheduleInterval(p, { jobId, every: '1h', args: [1], paused: true, replaceExisting: true });
      expect((await actionMetadata(jobId)).summary).toBe(`run-metadata (job ${jobId})`);
      await plain.modifyJob(jobId, { note: 'on again' });
      expect((await actionMetadata(jobId)).summary).toBe(`run-metadata (job ${jobId})`);
    } finally {
      await plain.removeJob(jobId);
    }
  });

  it('through the temporal CLI: toggled, triggered and deleted, the job keeps its choice until gone', async () => {
    const jobId = t.uid('meta-cli');
    await quiet.scheduleInterval(p, { jobId, every: '1h', args: [1] });
    try {
      await temporalCli(t.namespace, [
        'schedule',
        'toggle',
        '--schedule-id',
        jobId,
        '--pause',
        '--reason',
        'cli',
      ]);
      const paused = await plain.getJob(jobId);
      expect(paused.paused).toBe(true);
      expect(!paused.foreign && paused.runMetadata).toBe(false);
      await temporalCli(t.namespace, [
        'schedule',
        'toggle',
        '--schedule-id',
        jobId,
        '--unpause',
        '--reason',
        'cli',
      ]);
      // A run triggered with the CLI has no UI summary either (it comes from the schedule's action).
      const query = `${SCHEDULED_BY_ID_ATTRIBUTE.name} = '${jobId}'`;
      await temporalCli(t.namespace, ['schedule', 'trigger', '--schedule-id', jobId]);
      const run = await waitFor('the CLI-triggered run listed', async () => {
        for await (const wf of t.client.workflow.list({ query })) return wf;
        return undefined;
      });
      const handle = t.client.workflow.getHandle(run.workflowId, run.runId);
      await handle.result();
      expect(await (await handle.describe()).staticSummary()).toBeUndefined();
      expect(await actionMetadata(jobId)).toEqual({ summary: undefined, details: undefined });
      await temporalCli(t.namespace, ['schedule', 'delete', '--schedule-id', jobId]);
      await expect(plain.getJob(jobId)).rejects.toBeInstanceOf(JobNotFoundError);
    } finally {
      await plain.removeJob(jobId).catch(() => undefined);
    }
  });

  it('refuses a value that is not a boolean, naming the option', () => {
    expect(
      () =>
        new PipelineScheduler(t.client, { taskQueue: t.taskQueue, runMetadata: 'no' as unknown as boolean }),
    ).toThrow(InvalidArgumentError);
  });
});

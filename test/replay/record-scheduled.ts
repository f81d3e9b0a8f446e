/*
 * Records the histories of scheduled runs, which go through the job guards (see
 * src/workflows/guards/job-guards.ts), and of the per-job semaphore workflow:
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-scheduled.ts
 *
 * - scheduled-guards.json: a job with maxInstances 2 (a semaphore slot is taken and given back), a misfire
 *   grace, and an onError hook, whose run fails for good;
 * - scheduled-once.json: a one-off job, cleaned up by the run that used its single action;
 * - job-semaphore.json: the semaphore workflow of the first job after the run released its slot.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { pipeline } from '../../src/pipeline';
import { semaphoreWorkflowId, holdersQuery } from '../../src/workflows/semaphore/semaphore-defs';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { steps } from './record';
import { runScript, withRecordingWorker } from './recording-env';

const dir = path.join(__dirname, 'histories');

async function main(): Promise<void> {
  await withRecordingWorker(steps, async ({ client, taskQueue }) => {
    const scheduler = new PipelineScheduler(client, { taskQueue, steps });
    /** The one run a job started, once it has closed. */
    const closedRunOf = (jobId: string) =>
      waitFor(
        `the run of ${jobId}`,
        async () => {
          for await (const wf of client.workflow.list({ query: `TemporalScheduledById = '${jobId}'` })) {
            if (wf.status.name !== 'RUNNING') return client.workflow.getHandle(wf.workflowId, wf.runId);
          }
          return undefined;
        },
        30_000,
      );

    const guarded = await scheduler.scheduleInterval(
      pipeline('scheduled-guards', { steps }).step('add', { compensate: 'undo' }).step('boom'),
      {
        jobId: 'replay-guards',
        every: '1h',
        paused: true,
        maxInstances: 2,
        misfireGraceTime: '10m',
        onError: 'notify',
        args: [1],
      },
    );
    await scheduler.triggerJob(guarded);
    const run = await closedRunOf(guarded);
    await writeHistoryFile(path.join(dir, 'scheduled-guards.json'), await run.fetchHistory());
    const semaphore = client.workflow.getHandle(semaphoreWorkflowId(guarded));
    await waitFor('the slot to be given back', async () =>
      (await semaphore.query(holdersQuery)).length === 0 ? true : undefined,
    );
    await writeHistoryFile(path.join(dir, 'job-semaphore.json'), await semaphore.fetchHistory());
    await scheduler.removeJob(guarded);

    const once = await scheduler.scheduleAt(
      pipeline('scheduled-once', { steps }).step('add').step('double'),
      {
        jobId: 'replay-once',
        runAt: new Date(Date.now() + 3_000).toISOString(),
        args: [2],
      },
    );
    const oneOff = await closedRunOf(once);
    await writeHistoryFile(path.join(dir, 'scheduled-once.json'), await oneOff.fetchHistory());
    console.log('recorded scheduled-guards.json, job-semaphore.json, scheduled-once.json');
  });
}

runScript(main);

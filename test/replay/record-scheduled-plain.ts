/*
 * Records the history of the most common scheduled run: a job with the defaults and a misfire grace (it
 * coalesces, no instance limit, no onError hook, no alert, no DST policy, no horizon), started within its
 * grace. Its job guards take no lookup and have nothing to finish (src/workflows/guards/job-guards.ts), the
 * path bench/fire-burst measures.
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-scheduled-plain.ts
 *
 * - scheduled-plain.json: the run of a triggered job of two steps, recorded by the job guards of 1416996
 *   (before the guards handed such a run to the interpreter without an async frame of their own).
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { pipeline } from '../../src/pipeline';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { steps } from './record';
import { runScript, withRecordingWorker } from './recording-env';

const dir = path.join(__dirname, 'histories');

async function main(): Promise<void> {
  await withRecordingWorker(steps, async ({ client, taskQueue }) => {
    const scheduler = new PipelineScheduler(client, { taskQueue, steps });
    const jobId = await scheduler.scheduleInterval(
      pipeline('scheduled-plain', { steps }).step('add').step('double'),
      { jobId: 'replay-scheduled-plain', every: '1h', paused: true, misfireGraceTime: '10m', args: [1] },
    );
    await scheduler.triggerJob(jobId);
    const run = await waitFor(
      `the run of ${jobId}`,
      async () => {
        for await (const wf of client.workflow.list({ query: `TemporalScheduledById = '${jobId}'` })) {
          if (wf.status.name === 'COMPLETED') return client.workflow.getHandle(wf.workflowId, wf.runId);
        }
        return undefined;
      },
      30_000,
    );
    await writeHistoryFile(path.join(dir, 'scheduled-plain.json'), await run.fetchHistory());
    await scheduler.removeJob(jobId);
    console.log('recorded scheduled-plain.json');
  });
}

runScript(main);

/*
 * Records the history of a scheduled run that renews its job's horizon (src/workflows/guards/job-guards.ts,
 * patch `tflow-horizon-renewal`):
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-horizon.ts   (or TEMPORAL_ADDRESS=...)
 *
 * - scheduled-horizon-renewed.json: a run of a job written as if in March 2023 (holidays held until 2026,
 *   so less than a year of horizon left), triggered: it starts tflowRenewHorizon beside its steps and
 *   awaits it at its end.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { updateJob } from '../../src/client/jobs/store/send-update';
import { modifyUpdate } from '../../src/client/jobs/store/build-updates';
import { pipeline } from '../../src/pipeline';
import type { PipelineRunInput } from '../../src/workflows/run-types';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { steps } from './record';
import { runScript, withRecordingWorker } from './recording-env';

const dir = path.join(__dirname, 'histories');

async function main(): Promise<void> {
  await withRecordingWorker(steps, async ({ client, taskQueue }) => {
    const scheduler = new PipelineScheduler(client, { taskQueue, steps });
    const jobId = 'replay-horizon';
    const p = pipeline('scheduled-horizon', { steps }).step('add');
    await scheduler.schedule(p, { jobId, cron: '0 3 * * *', exclude: { holidays: 'FR' }, args: [1] });
    try {
      const past = new Date('2023-03-01T00:00:00Z');
      await updateJob(client, jobId, (d) => modifyUpdate(jobId, d, { alerts: {}, policies: {} }, past));
      await scheduler.triggerJob(jobId);
      const workflowId = await waitFor('the triggered run', async () => {
        const d = await client.schedule.getHandle(jobId).describe();
        return d.info.recentActions[0]?.action.workflow.workflowId;
      });
      const run = client.workflow.getHandle(workflowId);
      await run.result();
      const input = (await client.schedule.getHandle(jobId).describe()).action.args?.[0] as PipelineRunInput;
      if (input.job?.horizonEnd === '2027-01-01T00:00:00.000Z')
        throw new Error('the run did not renew the job');
      await writeHistoryFile(path.join(dir, 'scheduled-horizon-renewed.json'), await run.fetchHistory());
      console.log(`recorded scheduled-horizon-renewed.json (horizon now ends ${input.job?.horizonEnd})`);
    } finally {
      await scheduler.removeJob(jobId);
    }
  });
}

runScript(main);

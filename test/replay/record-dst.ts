/*
 * Records the history of a scheduled run that the DST run guard skips (src/workflows/guards/job-guards.ts,
 * patch `tflow-dst-guard`):
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-dst.ts   (or TEMPORAL_ADDRESS=...)
 *
 * - scheduled-dst-skipped.json: a run whose nominal time is in its `dstSkips` (a clock change cannot be
 *   made due on demand: the schedule fires at a UTC instant a few seconds ahead, and its runs name that
 *   instant as one of Temporal's fires the job's DST policy does not run).
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { runStartOptions } from '../../src/client/runs/run-start';
import { pipeline } from '../../src/pipeline';
import { toPipelineSpec } from '../../src/pipeline/builder';
import { compileTrigger } from '../../src/schedule/compile-trigger';
import { PIPELINE_WORKFLOW_TYPE } from '../../src/workflows/run-types';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { steps } from './record';
import { runScript, withRecordingWorker } from './recording-env';

const dir = path.join(__dirname, 'histories');

async function main(): Promise<void> {
  await withRecordingWorker(steps, async ({ client, taskQueue }) => {
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 4_000);
    const jobId = 'replay-dst';
    const handle = await client.schedule.create({
      scheduleId: jobId,
      // A one-off at that second: the spec a `runAt` job compiles to.
      spec: compileTrigger({ runAt: at.toISOString() }, 'UTC').spec,
      action: {
        type: 'startWorkflow',
        workflowType: PIPELINE_WORKFLOW_TYPE,
        workflowId: jobId,
        taskQueue,
        ...runStartOptions(toPipelineSpec(pipeline('scheduled-dst', { steps }).step('add')), [1], {
          job: { jobId, dstSkips: [at.toISOString().replace('.000Z', 'Z')] },
        }),
      },
    });
    try {
      const run = await waitFor(
        'the skipped run',
        async () => {
          for await (const wf of client.workflow.list({ query: `TemporalScheduledById = '${jobId}'` })) {
            if (wf.status.name !== 'RUNNING') return client.workflow.getHandle(wf.workflowId, wf.runId);
          }
          return undefined;
        },
        30_000,
      );
      await writeHistoryFile(path.join(dir, 'scheduled-dst-skipped.json'), await run.fetchHistory());
      console.log('recorded scheduled-dst-skipped.json');
    } finally {
      await handle.delete();
    }
  });
}

runScript(main);

/*
 * Records the history of a late run of a coalescing job (see src/workflows/guards/coalesce.ts): the run waited
 * for a worker while Temporal skipped later occurrences, then stood for the latest of them.
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-coalesced.ts
 *
 * - scheduled-coalesced.json: a run past its own grace (about 4 s late, grace 2 s): the patch marker, the
 *   tflowLatestOccurrence activity, the memo upsert, and the steps run within the grace of the latest
 *   occurrence.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { pipeline } from '../../src/pipeline';
import type { PipelineRunResult } from '../../src/workflows/run-types';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { steps } from './record';
import { runScript, withRecordingWorker } from './recording-env';

const dir = path.join(__dirname, 'histories');
const jobId = `replay-coalesced-${Date.now()}`;

async function main(): Promise<void> {
  await withRecordingWorker(
    steps,
    async ({ client, taskQueue }) => {
      const scheduler = new PipelineScheduler(client, { taskQueue, steps });
      const run = await waitFor(
        'the waiting run to close',
        async () => {
          const [latest] = (await scheduler.getHistory(jobId, { limit: 20 })).filter(
            (r) => r.status !== 'running',
          );
          return latest;
        },
        30_000,
      );
      await scheduler.removeJob(jobId);
      const handle = client.workflow.getHandle(run.workflowId, run.runId);
      const result: PipelineRunResult = await handle.result();
      if (!result.standsFor)
        throw new Error(`the run did not stand for a later occurrence: ${JSON.stringify(result)}`);
      await writeHistoryFile(path.join(dir, 'scheduled-coalesced.json'), await handle.fetchHistory());
      console.log(
        `recorded scheduled-coalesced.json (due ${run.scheduledAt?.toISOString()}, stood for ${result.standsFor})`,
      );
    },
    async ({ client, taskQueue }) => {
      // No worker yet: the first occurrence starts and waits, the next ones are skipped as overlaps.
      const scheduler = new PipelineScheduler(client, { taskQueue, steps });
      await scheduler.scheduleInterval(
        pipeline('scheduled-coalesced', { steps }).step('add').step('double'),
        {
          jobId,
          every: '1s',
          coalesce: true,
          // A grace shorter than the wait: only a run past its grace looks up the later occurrence.
          misfireGraceTime: '2s',
          args: [3],
        },
      );
      await waitFor(
        'a waiting run and four occurrences skipped behind it',
        async () => {
          const job = await scheduler.getJob(jobId);
          return !job.foreign && job.counters?.running === 1 && job.counters.skippedOverlap >= 4
            ? true
            : undefined;
        },
        30_000,
      );
    },
  );
}

runScript(main);

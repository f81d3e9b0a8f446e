/*
 * Records the histories of late runs of a job that does not coalesce (overlap BUFFER_ALL; see
 * src/workflows/judged-at.ts): the first run waited for a worker while Temporal buffered the later
 * occurrences, then each buffered run was judged when it could have started.
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-buffered.ts
 *
 * - scheduled-buffered-skipped.json: a queued run judged when its skipped predecessor was, still past the
 *   grace: the patch marker, the tflowJudgedAt activity, the memo upsert, skipped (misfire);
 * - scheduled-buffered-ran.json: a queued run past the grace by its own first task but within it when
 *   judged so: the same commands, then its steps.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { PipelineScheduler } from '../../src/client/pipeline-scheduler';
import type { JobRun } from '../../src/client/run-types';
import { pipeline } from '../../src/pipeline';
import { FIRST_TASK_MEMO } from '../../src/workflows/run-types';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { steps } from './record';
import { runScript, withRecordingWorker } from './recording-env';

const dir = path.join(__dirname, 'histories');
const jobId = `replay-buffered-${Date.now()}`;

/** A closed run judged before its first workflow task (so queued behind its predecessor), or undefined. */
async function queued(client: Client, runs: JobRun[], status: JobRun['status']): Promise<JobRun | undefined> {
  for (const run of runs) {
    if (run.status !== status || !run.judgedAt) continue;
    const memo = (await client.workflow.getHandle(run.workflowId, run.runId).describe()).memo;
    const firstTask = memo?.[FIRST_TASK_MEMO];
    if (typeof firstTask === 'string' && run.judgedAt.getTime() < Date.parse(firstTask)) return run;
  }
  return undefined;
}

async function main(): Promise<void> {
  await withRecordingWorker(
    steps,
    async ({ client, taskQueue }) => {
      const scheduler = new PipelineScheduler(client, { taskQueue, steps });
      const [skipped, ran] = await waitFor(
        'a queued run skipped and a queued run that ran',
        async () => {
          const runs = await scheduler.getHistory(jobId, { limit: 30 });
          const found = [await queued(client, runs, 'skipped'), await queued(client, runs, 'completed')];
          return found[0] && found[1] ? (found as [JobRun, JobRun]) : undefined;
        },
        60_000,
      );
      await scheduler.removeJob(jobId);
      for (const [file, run] of [
        ['scheduled-buffered-skipped.json', skipped],
        ['scheduled-buffered-ran.json', ran],
      ] as const) {
        const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
        await writeHistoryFile(path.join(dir, file), history);
        console.log(
          `recorded ${file} (due ${run.scheduledAt?.toISOString()}, judged at ${run.judgedAt?.toISOString()}, ${run.status})`,
        );
      }
    },
    async ({ client, taskQueue }) => {
      // No worker yet: the first occurrence starts and waits, the next ones are buffered behind it.
      const scheduler = new PipelineScheduler(client, { taskQueue, steps });
      await scheduler.scheduleInterval(pipeline('scheduled-buffered', { steps }).step('add').step('double'), {
        jobId,
        every: '1s',
        coalesce: false,
        misfireGraceTime: '2s',
        args: [3],
      });
      await waitFor(
        'a waiting run and five occurrences buffered behind it',
        async () => {
          const d = await client.schedule.getHandle(jobId).describe();
          return Number(d.raw.info?.bufferSize ?? 0) >= 5 ? true : undefined;
        },
        30_000,
      );
    },
  );
}

runScript(main);

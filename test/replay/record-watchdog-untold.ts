/*
 * Records the history of a watchdog whose job's runs complete without telling it (their input edited
 * outside temporal-flow without the watchdog flag): at each deadline its read finds a run that visibility
 * lists as completed (`lastCompletedAt`, watchdog-defs.ts), moves the clock there, and stays quiet.
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-watchdog-untold.ts
 *
 * - job-watchdog-untold.json: a job every 2 s with expectSuccessWithin 4 s; its input edited; the
 *   watchdog moves its clock from reads at least twice, raises nothing, and ends when the job is removed.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import type { PipelineRunInput } from '../../src/workflows/run-types';
import { watchdogWorkflowId } from '../../src/workflows/alerts/watchdog-defs';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { steps } from './record';
import { runScript, withWatchdogRecording } from './recording-env';

const dir = path.join(__dirname, 'histories');

async function main(): Promise<void> {
  await withWatchdogRecording(steps, async ({ client, scheduler, work }) => {
    const jobId = 'replay-watchdog-untold';
    await scheduler.scheduleInterval(work, {
      jobId,
      every: '2s',
      args: [1],
      expectSuccessWithin: '4s',
      onSilent: 'notify',
    });
    await client.schedule.getHandle(jobId).update((d) => {
      const input = d.action.args![0] as PipelineRunInput;
      const { watchdog: _w, ...alerts } = input.job!.alerts!;
      return { ...d, action: { ...d.action, args: [{ ...input, job: { ...input.job!, alerts } }] } };
    });
    const watchdog = client.workflow.getHandle(watchdogWorkflowId(jobId));
    await waitFor(
      'two clock moves from reads',
      async () => {
        const events = (await watchdog.fetchHistory()).events ?? [];
        const reads = events.filter(
          (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'tflowWatchSchedule',
        );
        return reads.length >= 3 ? true : undefined;
      },
      40_000,
    );
    await scheduler.removeJob(jobId);
    await watchdog.result();
    await writeHistoryFile(path.join(dir, 'job-watchdog-untold.json'), await watchdog.fetchHistory());
    console.log('recorded job-watchdog-untold.json');
  });
}

runScript(main);

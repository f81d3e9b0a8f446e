/*
 * Records the history of a watchdog told of a trigger (countsChangedSignal in
 * src/workflows/alerts/watchdog-defs.ts):
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-watchdog-counts-changed.ts
 *
 * - job-watchdog-counts-changed.json: the watchdog of a paused hourly job with onMissed, whose next read
 *   of the counts is a day away; a trigger tells it, and it reads the counts 30 s later (an overlap skip
 *   of a trigger is counted at once), then sleeps again; it ends when the job is removed.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { watchdogStateQuery, watchdogWorkflowId } from '../../src/workflows/alerts/watchdog-defs';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { steps } from './record';
import { runScript, withWatchdogRecording } from './recording-env';

const dir = path.join(__dirname, 'histories');

async function main(): Promise<void> {
  await withWatchdogRecording(steps, async ({ client, scheduler, pausedJob }) => {
    const jobId = await pausedJob('replay-watchdog-counts-changed', '1h', { onMissed: 'notify' });
    const watchdog = client.workflow.getHandle(watchdogWorkflowId(jobId));
    const state = () => watchdog.query(watchdogStateQuery);
    const first = await waitFor('the watchdog to read the job', async () => {
      const s = await state();
      return s.countsAt ? s : undefined;
    });
    await scheduler.triggerJob(jobId);
    await waitFor(
      'the counts read again after the trigger',
      async () => ((await state()).countsAt !== first.countsAt ? true : undefined),
      60_000,
    );
    await scheduler.removeJob(jobId);
    await watchdog.result();
    await writeHistoryFile(path.join(dir, 'job-watchdog-counts-changed.json'), await watchdog.fetchHistory());
    console.log('recorded job-watchdog-counts-changed.json');
  });
}

runScript(main);

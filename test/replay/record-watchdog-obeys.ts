/*
 * Records the history of a watchdog that obeys its job's schedule (WATCHDOG_OBEYS_SCHEDULE_PATCH in
 * src/workflows/alerts/watchdog-defs.ts):
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-watchdog-obeys.ts
 *
 * - job-watchdog-obeys-schedule.json: the watchdog of a paused job (expectSuccessWithin 3 s) whose alert
 *   was changed to 6 s by a write that never signalled it: at the 3 s deadline it reads the schedule and
 *   adopts 6 s; at 6 s it goes silent; a triggered run recovers it; then the schedule is deleted without a
 *   signal, and at its next deadline the watchdog reads that and ends without an alert.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { updateJob } from '../../src/client/jobs/store/send-update';
import { modifyUpdate } from '../../src/client/jobs/store/build-updates';
import { watchdogStateQuery, watchdogWorkflowId } from '../../src/workflows/alerts/watchdog-defs';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { steps } from './record';
import { runScript, withWatchdogRecording } from './recording-env';

const dir = path.join(__dirname, 'histories');

async function main(): Promise<void> {
  await withWatchdogRecording(steps, async ({ client, scheduler, pausedJob }) => {
    const jobId = await pausedJob('replay-watchdog-obeys', '1h', {
      onSilent: 'notify',
      expectSuccessWithin: '3s',
    });
    const watchdog = client.workflow.getHandle(watchdogWorkflowId(jobId));
    const state = () => watchdog.query(watchdogStateQuery);
    await waitFor('the watchdog to read the job', async () =>
      (await state()).config?.expectSuccessWithinMs === 3_000 ? true : undefined,
    );
    // A write the watchdog is not told of (as when its writer dies before the signal).
    await updateJob(client, jobId, (d) =>
      modifyUpdate(jobId, d, { alerts: { expectSuccessWithin: '6s' }, policies: {} }),
    );
    await waitFor('the watchdog to adopt 6 s at its 3 s deadline', async () =>
      (await state()).config?.expectSuccessWithinMs === 6_000 ? true : undefined,
    );
    await waitFor('the job to go silent', async () => ((await state()).silent ? true : undefined), 30_000);
    await scheduler.triggerJob(jobId);
    await waitFor('the job to recover', async () => ((await state()).silent ? undefined : true), 30_000);
    // Deleted without a signal: the watchdog finds out at its next deadline.
    await client.schedule.getHandle(jobId).delete();
    await watchdog.result();
    await writeHistoryFile(path.join(dir, 'job-watchdog-obeys-schedule.json'), await watchdog.fetchHistory());
    console.log('recorded job-watchdog-obeys-schedule.json');
  });
}

runScript(main);

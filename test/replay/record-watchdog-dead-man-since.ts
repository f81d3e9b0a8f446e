/*
 * Records the history of a watchdog whose dead-man switch was added to a job that already had one for
 * onMissed (the clock starts at the switch: deadManSince in its read, src/workflows/alerts/watchdog-defs.ts):
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-watchdog-dead-man-since.ts
 *
 * - job-watchdog-dead-man-since.json: the watchdog of a paused job with only onMissed; 4 s later
 *   modifyJob adds expectSuccessWithin 3 s with onSilent: the watchdog adopts the switch with its clock
 *   starting at the write (not at the watchdog's start, which would page at once), goes silent 3 s
 *   later, recovers at a triggered run, and ends when the job is removed.
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
    const jobId = await pausedJob('replay-watchdog-dead-man-since', '1h', { onMissed: 'notify' });
    const watchdog = client.workflow.getHandle(watchdogWorkflowId(jobId));
    const state = () => watchdog.query(watchdogStateQuery);
    await waitFor('the watchdog to read the job', async () =>
      (await state()).config?.onMissed ? true : undefined,
    );
    const started = Date.parse((await state()).lastSuccessAt);
    await waitFor('4 s of the job', async () => (Date.now() - started >= 4_000 ? true : undefined));
    await scheduler.modifyJob(jobId, { expectSuccessWithin: '3s', onSilent: 'notify' });
    await waitFor('the watchdog to adopt the switch with its own clock', async () => {
      const s = await state();
      return s.config?.deadManSince && Date.parse(s.lastSuccessAt) >= started + 4_000 ? true : undefined;
    });
    await waitFor('the job to go silent', async () => ((await state()).silent ? true : undefined), 30_000);
    await scheduler.triggerJob(jobId);
    await waitFor('the job to recover', async () => ((await state()).silent ? undefined : true), 30_000);
    await scheduler.removeJob(jobId);
    await watchdog.result();
    await writeHistoryFile(path.join(dir, 'job-watchdog-dead-man-since.json'), await watchdog.fetchHistory());
    console.log('recorded job-watchdog-dead-man-since.json');
  });
}

runScript(main);

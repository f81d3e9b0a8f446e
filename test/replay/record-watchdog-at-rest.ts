/*
 * Records the history of a watchdog at rest (WATCHDOG_AT_REST_PATCH in src/workflows/alerts/watchdog-defs.ts):
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-watchdog-at-rest.ts   # about 7 minutes
 *
 * - job-watchdog-at-rest.json: the watchdog of a daily cron job (expectSuccessWithin 45 s, onSilent and
 *   onMissed) whose next nominal time is about 6 minutes away. Two triggered runs complete: their signals
 *   move the last success without a timer command; the first deadline's timer finds a later success and
 *   sleeps again; the second raises silent (reading the schedule and its counters); the cron run at the
 *   nominal time recovers it; the counters are read once after the nominal time plus its grace (the next
 *   read is then a day away), before the deadline that follows the run; the job is removed and the
 *   watchdog ends.
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
  await withWatchdogRecording(steps, async ({ client, scheduler, work }) => {
    // A daily time 5.5 to 6.5 minutes from now, in UTC: the counters' read after it (30 s on) then
    // comes before the dead-man deadline that follows its run (45 s on).
    const nominal = new Date(Math.ceil((Date.now() + 5.5 * 60_000) / 60_000) * 60_000);
    const jobId = await scheduler.schedule(work, {
      jobId: 'replay-watchdog-at-rest',
      cron: `${nominal.getUTCMinutes()} ${nominal.getUTCHours()} * * *`,
      timezone: 'UTC',
      args: [1],
      onSilent: 'notify',
      onMissed: 'notify',
      expectSuccessWithin: '45s',
    });
    const watchdog = client.workflow.getHandle(watchdogWorkflowId(jobId));
    const state = () => watchdog.query(watchdogStateQuery);
    const started = await waitFor('the watchdog to read the job', async () => {
      const s = await state();
      return s.config?.expectSuccessWithinMs === 45_000 && s.countsDueAt ? s : undefined;
    });
    console.log(`nominal ${nominal.toISOString()}, counts due ${started.countsDueAt}`);
    for (let i = 0; i < 2; i++) {
      const before = (await state()).lastSuccessAt;
      await new Promise((r) => setTimeout(r, 4_000));
      await scheduler.triggerJob(jobId);
      await waitFor(`triggered run ${i + 1} to move the last success`, async () =>
        (await state()).lastSuccessAt > before ? true : undefined,
      );
    }
    await waitFor('the job to go silent', async () => ((await state()).silent ? true : undefined), 90_000);
    console.log('silent; waiting for the nominal run');
    await waitFor(
      'the nominal run to recover it',
      async () => ((await state()).silent ? undefined : true),
      7 * 60_000,
    );
    await waitFor(
      'the counts to be read after the nominal time',
      async () => {
        const s = await state();
        return s.countsAt && Date.parse(s.countsAt) > nominal.getTime() ? true : undefined;
      },
      7 * 60_000,
    );
    await scheduler.removeJob(jobId);
    await watchdog.result();
    await writeHistoryFile(path.join(dir, 'job-watchdog-at-rest.json'), await watchdog.fetchHistory());
    console.log('recorded job-watchdog-at-rest.json');
  });
}

runScript(main);

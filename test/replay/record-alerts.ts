/*
 * Records the histories of the durable alerts (see src/workflows/alerts/run-alerts.ts and
 * watchdog-workflow.ts):
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-alerts.ts
 *
 * - scheduled-alerts-late.json: a backfilled run 10-20 s late of a job with onLate, onMissed and a
 *   watchdog: it raises `late` while its step runs, then tells the watchdog it completed;
 * - scheduled-alerts-missed.json: a run of a job with onMissed skipped for misfire: it raises `missed`;
 * - job-watchdog.json: the watchdog of a job (expectSuccessWithin 3 s) that went silent while paused,
 *   recovered at a triggered run, and ended when the job was removed.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { pipeline } from '../../src/pipeline';
import { watchdogWorkflowId, watchdogStateQuery } from '../../src/workflows/alerts/watchdog-defs';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { steps } from './record';
import { runScript, withWatchdogRecording } from './recording-env';

const dir = path.join(__dirname, 'histories');

/** A past window holding exactly one occurrence of a 10 s interval, 10 to 20 s ago. */
function oneOccurrence(): { from: Date; to: Date } {
  const to = Math.floor(Date.now() / 10_000) * 10_000 - 5_000;
  return { from: new Date(to - 10_000), to: new Date(to) };
}

async function main(): Promise<void> {
  await withWatchdogRecording(steps, async ({ client, scheduler }) => {
    const closedRuns = (jobId: string, n: number) =>
      waitFor(
        `${n} closed run(s) of ${jobId}`,
        async () => {
          const closed = [];
          for await (const wf of client.workflow.list({ query: `TemporalScheduledById = '${jobId}'` })) {
            if (wf.status.name !== 'RUNNING') closed.push(client.workflow.getHandle(wf.workflowId, wf.runId));
          }
          return closed.length >= n ? closed : undefined;
        },
        30_000,
      );
    const work = pipeline('scheduled-alerts', { steps }).step('add');

    const late = await scheduler.scheduleInterval(work, {
      jobId: 'replay-alerts-late',
      every: '10s',
      paused: true,
      args: [1],
      onMissed: 'notify',
      onLate: 'notify',
      lateAfter: '2s',
      onSilent: 'notify',
      expectSuccessWithin: '1h',
    });
    await scheduler.backfillJob(late, oneOccurrence());
    const [lateRun] = await closedRuns(late, 1);
    await writeHistoryFile(path.join(dir, 'scheduled-alerts-late.json'), await lateRun!.fetchHistory());
    await scheduler.removeJob(late);

    const missed = await scheduler.scheduleInterval(work, {
      jobId: 'replay-alerts-missed',
      every: '10s',
      paused: true,
      args: [1],
      coalesce: false,
      misfireGraceTime: '2s',
      onMissed: 'notify',
    });
    await scheduler.backfillJob(missed, oneOccurrence());
    const [missedRun] = await closedRuns(missed, 1);
    await writeHistoryFile(path.join(dir, 'scheduled-alerts-missed.json'), await missedRun!.fetchHistory());
    await scheduler.removeJob(missed);

    const silent = await scheduler.scheduleInterval(work, {
      jobId: 'replay-alerts-watchdog',
      every: '1h',
      paused: true,
      args: [1],
      onSilent: 'notify',
      expectSuccessWithin: '3s',
    });
    const watchdog = client.workflow.getHandle(watchdogWorkflowId(silent));
    await waitFor('the job to go silent', async () =>
      (await watchdog.query(watchdogStateQuery)).silent ? true : undefined,
    );
    await scheduler.triggerJob(silent);
    await closedRuns(silent, 1);
    await waitFor('the job to recover', async () =>
      (await watchdog.query(watchdogStateQuery)).silent ? undefined : true,
    );
    await scheduler.removeJob(silent);
    await watchdog.result();
    await writeHistoryFile(path.join(dir, 'job-watchdog.json'), await watchdog.fetchHistory());
    console.log('recorded scheduled-alerts-late.json, scheduled-alerts-missed.json, job-watchdog.json');
  });
}

runScript(main);

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
  await withWatchdogRecording(steps, async ({ client, scheduler, pausedJob }) => {
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
    /** Backfills one occurrence of `jobId`, writes its run's history to `file`, and removes the job. */
    const recordBackfilledRun = async (jobId: string, file: string) => {
      await scheduler.backfillJob(jobId, oneOccurrence());
      const [run] = await closedRuns(jobId, 1);
      await writeHistoryFile(path.join(dir, file), await run!.fetchHistory());
      await scheduler.removeJob(jobId);
    };

    const late = await pausedJob('replay-alerts-late', '10s', {
      onMissed: 'notify',
      onLate: 'notify',
      lateAfter: '2s',
      onSilent: 'notify',
      expectSuccessWithin: '1h',
    });
    await recordBackfilledRun(late, 'scheduled-alerts-late.json');

    const missed = await pausedJob('replay-alerts-missed', '10s', {
      coalesce: false,
      misfireGraceTime: '2s',
      onMissed: 'notify',
    });
    await recordBackfilledRun(missed, 'scheduled-alerts-missed.json');

    const silent = await pausedJob('replay-alerts-watchdog', '1h', {
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

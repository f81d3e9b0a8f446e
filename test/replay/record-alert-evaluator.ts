/*
 * Records the shared alert evaluator of a task queue and what it starts, and a scheduled run of a job with
 * a dead-man switch under RUNS_TELL_NO_WATCHDOG_PATCH (it completes without signalling anything).
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-alert-evaluator.ts
 *
 * - alert-evaluator.json: the evaluator workflow (its evaluation activity returning after 2 s and started
 *   again, a `countsChanged` hint signalled between), fetched while it runs.
 * - alert-delivery-silent.json: the delivery workflow of a paused job's `silent` (the `notify` activity).
 * - scheduled-alerts-untold.json: a triggered run of a job with expectSuccessWithin, which completes
 *   without signalling (the evaluator reads completed runs from visibility).
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import {
  ALERT_DELIVERY_WORKFLOW_TYPE,
  alertCountsChangedSignal,
  alertEvaluatorWorkflowId,
} from '../../src/workflows/alerts/evaluator-defs';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { steps } from './record';
import { runScript, withWatchdogRecording } from './recording-env';

const dir = path.join(__dirname, 'histories');

async function main(): Promise<void> {
  await withWatchdogRecording(
    steps,
    async ({ client, scheduler, work, pausedJob, taskQueue }) => {
      const watchdogQueue = `${taskQueue}-watchdog`;
      const evaluator = client.workflow.getHandle(alertEvaluatorWorkflowId(watchdogQueue));

      // A paused job with a 1 s switch: silent, delivered by a workflow named by its cause.
      const silentJob = 'replay-alert-silent';
      await pausedJob(silentJob, '1h', { expectSuccessWithin: '1s', onSilent: 'notify' });
      const query = `WorkflowType = '${ALERT_DELIVERY_WORKFLOW_TYPE}' AND TaskQueue = '${watchdogQueue}' AND ExecutionStatus = 'Completed'`;
      const deliveryId = await waitFor(
        'the silent delivery to complete',
        async () => {
          for await (const wf of client.workflow.list({ query })) return wf.workflowId;
          return undefined;
        },
        40_000,
      );
      await writeHistoryFile(
        path.join(dir, 'alert-delivery-silent.json'),
        await client.workflow.getHandle(deliveryId).fetchHistory(),
      );
      console.log('recorded alert-delivery-silent.json');

      // A job whose runs complete, triggered once: its run sends no signal.
      const liveJob = 'replay-alert-untold';
      await scheduler.scheduleInterval(work, {
        jobId: liveJob,
        every: '1h',
        args: [1],
        expectSuccessWithin: '2h',
        onSilent: 'notify',
      });
      await scheduler.triggerJob(liveJob);
      const [run] = await waitFor('the triggered run to complete', async () => {
        const runs = await scheduler.getHistory(liveJob);
        return runs.length > 0 && runs[0]!.status === 'completed' ? runs : undefined;
      });
      await writeHistoryFile(
        path.join(dir, 'scheduled-alerts-untold.json'),
        await client.workflow.getHandle(run!.workflowId).fetchHistory(),
      );
      console.log('recorded scheduled-alerts-untold.json');

      await evaluator.signal(alertCountsChangedSignal, liveJob);
      await waitFor(
        'the evaluator to start its evaluation a third time',
        async () => {
          const events = (await evaluator.fetchHistory()).events ?? [];
          return events.filter((e) => e.activityTaskScheduledEventAttributes).length >= 3 ? true : undefined;
        },
        40_000,
      );
      await writeHistoryFile(path.join(dir, 'alert-evaluator.json'), await evaluator.fetchHistory());
      console.log('recorded alert-evaluator.json');
      await scheduler.removeJob(silentJob);
      await scheduler.removeJob(liveJob);
      await evaluator.terminate('recording over');
    },
    { waveMs: 300, runForMs: 2_000, heartbeatTimeoutMs: 3_000 },
  );
}

runScript(main);

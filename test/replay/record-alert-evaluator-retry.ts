/*
 * Records the shared alert evaluator under EVALUATOR_RETRY_BOUNDED_PATCH (its evaluation retried within
 * 2 s, not up to a minute): alert-evaluator-retry-bounded.json, the evaluator with one job with a dead-man
 * switch, its evaluation activity returning after 2 s and started again twice, a `countsChanged` hint
 * signalled between, fetched while it runs. alert-evaluator.json is the same workflow before the patch.
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-alert-evaluator-retry.ts
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import {
  alertCountsChangedSignal,
  alertEvaluatorWorkflowId,
} from '../../src/workflows/alerts/evaluator-defs';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { steps } from './record';
import { runScript, withWatchdogRecording } from './recording-env';

const file = path.join(__dirname, 'histories', 'alert-evaluator-retry-bounded.json');

async function main(): Promise<void> {
  await withWatchdogRecording(
    steps,
    async ({ client, pausedJob, taskQueue }) => {
      const evaluator = client.workflow.getHandle(alertEvaluatorWorkflowId(`${taskQueue}-watchdog`));
      const jobId = 'replay-alert-retry-bounded';
      await pausedJob(jobId, '1h', { expectSuccessWithin: '2h', onSilent: 'notify' });
      await evaluator.signal(alertCountsChangedSignal, jobId);
      await waitFor(
        'the evaluator to start its evaluation a third time',
        async () => {
          const events = (await evaluator.fetchHistory()).events ?? [];
          return events.filter((e) => e.activityTaskScheduledEventAttributes).length >= 3 ? true : undefined;
        },
        40_000,
      );
      await writeHistoryFile(file, await evaluator.fetchHistory());
      console.log(`recorded ${path.basename(file)}`);
      await evaluator.terminate('recording over');
    },
    { waveMs: 300, runForMs: 2_000, heartbeatTimeoutMs: 3_000 },
  );
}

runScript(main);

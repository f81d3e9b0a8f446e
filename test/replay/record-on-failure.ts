/*
 * Records a run whose `onFailure` hook fails (src/workflows/run/interpreter.ts, runFailureHook):
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-on-failure.ts
 *
 * - on-failure-once.json: `refuse` fails for good, the hook `brokenHook` is scheduled once (patch marker
 *   `tflow-on-failure-once`, retry policy of one attempt), fails, is logged, and the run fails with
 *   `PipelineFailed`. saga.json, recorded before the patch, keeps the hook's three attempts.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { pipeline } from '../../src/pipeline';
import { writeHistoryFile } from './history-file';
import { runScript, withRecordingWorker } from './recording-env';

const steps = {
  async refuse(_x: number) {
    throw ApplicationFailure.create({ type: 'Refused', message: 'refused', nonRetryable: true });
  },
  async brokenHook(_details: unknown) {
    throw new Error('pager down');
  },
};

async function main(): Promise<void> {
  await withRecordingWorker(steps, async ({ client, taskQueue }) => {
    const pipelines = new PipelineClient(client, { taskQueue, steps });
    const p = pipeline('on-failure-once', { steps }).step('refuse').onFailure('brokenHook');
    const handle = await pipelines.start(p, [1], { workflowId: 'replay-on-failure-once' });
    await handle.result().catch(() => undefined); // fails on purpose
    const history = await handle.fetchHistory();
    const file = path.join(__dirname, 'histories', 'on-failure-once.json');
    await writeHistoryFile(file, history);
    console.log(
      `recorded on-failure-once: ${history.events?.length} events -> ${path.relative(process.cwd(), file)}`,
    );
  });
}

if (require.main === module) runScript(main);

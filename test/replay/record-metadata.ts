/*
 * Records a run with Temporal's user metadata: the static summary and details set at start
 * (src/client/runs/run-metadata.ts), a summary on each step's activity and the run header (pipeline, job,
 * nominal time) beside the occurrence header (src/workflows/idempotency/idempotency-interceptor.ts):
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-metadata.ts
 *
 * - user-metadata.json: `flaky` (retried once) as `fetch`, then a map of `double` over two items.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { pipeline } from '../../src/pipeline';
import { writeHistoryFile } from './history-file';
import { runScript, withRecordingWorker } from './recording-env';

const steps = {
  async flaky(n: number) {
    if (Context.current().info.attempt < 2) throw new Error('transient');
    return [n, n + 1];
  },
  async double(x: number) {
    return x * 2;
  },
};

async function main(): Promise<void> {
  await withRecordingWorker(steps, async ({ client, taskQueue }) => {
    const pipelines = new PipelineClient(client, { taskQueue, steps });
    const p = pipeline('user-metadata', { steps })
      .step('flaky', { id: 'fetch', retry: { maximumAttempts: 3, initialInterval: 100 } })
      .map('double', { id: 'each', concurrency: 2 });
    const handle = await pipelines.start(p, [1], { workflowId: 'replay-user-metadata' });
    await handle.result();
    const history = await handle.fetchHistory();
    const file = path.join(__dirname, 'histories', 'user-metadata.json');
    await writeHistoryFile(file, history);
    console.log(
      `recorded user-metadata: ${history.events?.length} events -> ${path.relative(process.cwd(), file)}`,
    );
  });
}

if (require.main === module) runScript(main);

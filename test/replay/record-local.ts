/*
 * Records a run with local steps (`local: true`, `localSteps`), which Temporal keeps as markers rather
 * than activity events:
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-local.ts
 *
 * - local-steps.json: `localSteps` pipeline; `add` (compensated by `undo`), a parallel group of a local
 *   and a regular step, a local map, then `flaky`, which fails once and is retried in the worker, then
 *   `boom`, which fails for good: the saga undoes `add` locally.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { pipeline } from '../../src/pipeline';
import { writeHistoryFile } from './history-file';
import { runScript, withRecordingWorker } from './recording-env';

const steps = {
  async add(x: number) {
    return x + 1;
  },
  async pair(x: number) {
    return [x, x + 1];
  },
  async flaky(x: unknown) {
    if (Context.current().info.attempt < 2) throw new Error('not yet');
    return x;
  },
  async boom() {
    throw ApplicationFailure.create({ type: 'Boom', message: 'boom', nonRetryable: true });
  },
  async undo() {},
};

async function main(): Promise<void> {
  await withRecordingWorker(steps, async ({ client, taskQueue }) => {
    const pipelines = new PipelineClient(client, { taskQueue, steps });
    const p = pipeline('local-steps', { steps, localSteps: true })
      .step('add', { compensate: 'undo' })
      .parallel(
        [
          { step: 'add', id: 'add-local' },
          { step: 'pair', local: false },
        ],
        { id: 'fan' },
      )
      .step('pair', { id: 'pair-local' })
      .map('add', { id: 'each', concurrency: 2 })
      .step('flaky', { retry: { maximumAttempts: 2, initialInterval: '50ms' } })
      .step('boom');
    const handle = await pipelines.start(p, [1], { workflowId: 'replay-local-steps' });
    await handle.result().catch(() => undefined);
    const history = await handle.fetchHistory();
    const file = path.join(__dirname, 'histories', 'local-steps.json');
    await writeHistoryFile(file, history);
    console.log(
      `recorded local-steps: ${history.events?.length} events -> ${path.relative(process.cwd(), file)}`,
    );
  });
}

if (require.main === module) runScript(main);

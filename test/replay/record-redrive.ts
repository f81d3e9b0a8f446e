/*
 * Records a redriven run, whose steps carry the occurrence header (src/workflows/idempotency/occurrence.ts) that
 * `stepIdempotencyKey()` reads, and whose input names the occurrence of the run it redrives:
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-redrive.ts
 *
 * - redrive-occurrence.json: `add` then `gate`; the first run fails at `gate`, the redrive starts there.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { pipeline } from '../../src/pipeline';
import { writeHistoryFile } from './history-file';
import { runScript, withRecordingWorker } from './recording-env';

let closed = true;
const steps = {
  async add(x: number) {
    return x + 1;
  },
  async gate(x: number) {
    if (closed)
      throw ApplicationFailure.create({ type: 'Closed', message: 'gate closed', nonRetryable: true });
    return x;
  },
};

async function main(): Promise<void> {
  await withRecordingWorker(steps, async ({ client, taskQueue }) => {
    const pipelines = new PipelineClient(client, { taskQueue, steps });
    const p = pipeline('redrive-occurrence', { steps }).step('add').step('gate');
    await pipelines.run(p, [1], { workflowId: 'replay-redrive-first' }).catch(() => undefined);
    closed = false;
    const handle = await pipelines.redrive('replay-redrive-first', {
      workflowId: 'replay-redrive-occurrence',
    });
    await handle.result();
    const history = await handle.fetchHistory();
    const file = path.join(__dirname, 'histories', 'redrive-occurrence.json');
    await writeHistoryFile(file, history);
    console.log(
      `recorded redrive-occurrence: ${history.events?.length} events -> ${path.relative(process.cwd(), file)}`,
    );
  });
}

if (require.main === module) runScript(main);

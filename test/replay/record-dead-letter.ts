/*
 * Records the dead-letter queue (src/workflows/dead-letter-*.ts): a run that fails files its letter, a
 * redrive of the letter completes and removes it, and the keeper that held it:
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-dead-letter.ts
 *
 * - dead-letter-filed.json: `add` then `gate`; the run fails at `gate` and files its letter (patch
 *   marker `tflow-dead-letter-keeper`, then the `tflowFileDeadLetter` activity).
 * - dead-letter-redriven.json: the redrive of that letter, which completes and signals the keeper.
 * - dead-letter-keeper.json: the keeper (`deadLetterWorkflow`): the letter filed, then redriven.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { pipeline } from '../../src/pipeline';
import { deadLetterWorkflowId } from '../../src/workflows/dead-letters/dead-letter-defs';
import { writeHistoryFile } from './history-file';
import { runScript, withRecordingWorker } from './recording-env';
import { waitFor } from '../helpers/wait-for';

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
    const p = pipeline('dead-letter', { steps }).step('add').step('gate');
    const failedId = `replay-dead-letter-${Date.now()}`;
    await pipelines.run(p, [1], { workflowId: failedId }).catch(() => undefined);
    await waitFor('the letter in the queue', async () =>
      (await pipelines.listDeadLetters({ pipeline: 'dead-letter' })).find((d) => d.workflowId === failedId),
    );
    closed = false;
    const redrive = await pipelines.redrive(failedId, { workflowId: `${failedId}-redrive` });
    await redrive.result();
    const keeper = client.workflow.getHandle(deadLetterWorkflowId(failedId));
    await keeper.result();
    const dir = path.join(__dirname, 'histories');
    for (const [name, history] of [
      ['dead-letter-filed', await client.workflow.getHandle(failedId).fetchHistory()],
      ['dead-letter-redriven', await redrive.fetchHistory()],
      ['dead-letter-keeper', await keeper.fetchHistory()],
    ] as const) {
      const file = path.join(dir, `${name}.json`);
      await writeHistoryFile(file, history);
      console.log(
        `recorded ${name}: ${history.events?.length} events -> ${path.relative(process.cwd(), file)}`,
      );
    }
  });
}

if (require.main === module) runScript(main);

/*
 * Records a semaphore that a worker from before SEMAPHORE_TASK_QUEUE started on a run's own task queue,
 * run by today's worker (SEMAPHORE_OWN_QUEUE_PATCH in src/workflows/semaphore/semaphore-defs.ts):
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-semaphore-moved.ts
 *
 * - semaphore-moved.json: the semaphore's first run, started on the recording worker's queue with a holder
 *   and a run in line (as the asks of an older worker left it), asked by today's worker (its request names
 *   `tflow-semaphores`), granted, then continued as new on `tflow-semaphores` with all three.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import {
  concurrencyTotalSemaphoreId,
  queueForSlotUpdate,
  SEMAPHORE_TASK_QUEUE,
  SEMAPHORE_WORKFLOW_TYPE,
  type SemaphoreState,
} from '../../src/workflows/semaphore/semaphore-defs';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { runScript, withRecordingWorker } from './recording-env';

async function main(): Promise<void> {
  await withRecordingWorker({}, async ({ client, taskQueue }) => {
    const workflowId = concurrencyTotalSemaphoreId(`moved-recorded-${Date.now()}`);
    const state: SemaphoreState = {
      holders: [{ workflowId: 'replay-moved-holder', runId: 'r1', key: 'k' }],
      waiting: [{ workflowId: 'replay-moved-waiter', runId: 'r2', key: 'k', max: 1, total: 2 }],
    };
    const first = await client.workflow.start(SEMAPHORE_WORKFLOW_TYPE, {
      workflowId,
      taskQueue,
      args: [state],
      workflowExecutionTimeout: '5m',
    });
    const answer = await first.executeUpdate(queueForSlotUpdate, {
      args: [
        {
          workflowId: 'replay-moved-asker',
          runId: 'r3',
          key: 'k2',
          max: 1,
          total: 2,
          queue: SEMAPHORE_TASK_QUEUE,
        },
      ],
    });
    if (answer !== 'granted') throw new Error(`expected the ask to be granted, got ${answer}`);
    await waitFor('the semaphore to continue on its own queue', async () =>
      (await client.workflow.getHandle(workflowId).describe()).taskQueue === SEMAPHORE_TASK_QUEUE
        ? true
        : undefined,
    );
    const history = await client.workflow.getHandle(workflowId, first.firstExecutionRunId).fetchHistory();
    const file = path.join(__dirname, 'histories', 'semaphore-moved.json');
    await writeHistoryFile(file, history);
    console.log(
      `recorded semaphore-moved: ${history.events?.length} events -> ${path.relative(process.cwd(), file)}`,
    );
    await client.workflow.getHandle(workflowId).terminate('recorded');
  });
}

if (require.main === module) runScript(main);

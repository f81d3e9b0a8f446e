/*
 * Records the flow-control workflow (debounce, batch, dedupe, throttle):
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-flow-control.ts [<name>...]
 *
 * With names (e.g. `flow-control-throttle`), records only those.
 * Each flow control is started under the id the replay test gives it (`replay-<name>`: its runs' ids derive
 * from it), and takes its events through the `tflowSendEvent` update as PipelineClient.send sends them.
 * - flow-control-debounce.json: debounce (period 1 s, maxWait 2 s, all): 3 events, one run; 2 more, one run.
 * - flow-control-batch.json: batch (maxSize 2, maxWait 1 s): 5 events, runs of 2, 2 and 1 (after maxWait).
 * - flow-control-dedupe.json: dedupe (window 1 m): 3 events, one run, two deduplicated.
 * - flow-control-throttle.json: throttle (limit 2, period 1 s): 5 events at once, runs of one event each,
 *   two at once, two a period later, the last a period after those (timers of the sliding window). Recorded
 *   before FLOW_STARTED_AT_PATCH: the period counts from the task that decided each run.
 * - flow-control-throttle-started-at.json: the same with FLOW_STARTED_AT_PATCH (its marker): the period
 *   counts from the task that saw each run started.
 * Each then gets its first event again (same event id, another update id): answered, taken once.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { pipeline, type Pipeline } from '../../src/pipeline';
import {
  FLOW_CONTROL_WORKFLOW_TYPE,
  pendingQuery,
  sendEventUpdate,
  type FlowControlInput,
} from '../../src/workflows/flow-control/flow-defs';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { runScript, withRecordingWorker } from './recording-env';

const steps = {
  async take(...args: unknown[]) {
    return args.length;
  },
};

async function record(
  client: Client,
  taskQueue: string,
  name: string,
  p: Pipeline,
  batches: unknown[][][],
  runs: number,
): Promise<void> {
  const input: FlowControlInput = { spec: p.spec, key: '', control: p.flowControl!.spec };
  const handle = await client.workflow.start(FLOW_CONTROL_WORKFLOW_TYPE, {
    workflowId: `replay-${name}`,
    taskQueue,
    args: [input],
  });
  let n = 0;
  for (const batch of batches) {
    for (const args of batch) {
      const id = `e${n++}`;
      await handle.executeUpdate(sendEventUpdate, { args: [{ id, args }], updateId: id });
    }
    await waitFor(`${name}: the batch's run`, async () =>
      (await handle.query(pendingQuery)).events === 0 ? true : undefined,
    );
  }
  // An event sent again with its id (under another update id, as after a lost answer): taken once.
  await handle.executeUpdate(sendEventUpdate, { args: [{ id: 'e0', args: [1] }], updateId: 'e0-again' });
  await waitFor(`${name}: ${runs} runs`, async () =>
    (await handle.query(pendingQuery)).started === runs ? true : undefined,
  );
  const history = await handle.fetchHistory();
  const file = path.join(__dirname, 'histories', `${name}.json`);
  await writeHistoryFile(file, history);
  console.log(`recorded ${name}: ${history.events?.length} events -> ${path.relative(process.cwd(), file)}`);
  await handle.terminate('recorded');
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const wanted = (name: string) => only.length === 0 || only.includes(name);
  await withRecordingWorker(steps, async ({ client, taskQueue }) => {
    const debounce = pipeline('debounce-recorded', {
      steps,
      debounce: { period: '1s', maxWait: '2s', deliver: 'all' },
    }).step('take');
    if (wanted('flow-control-debounce')) {
      await record(
        client,
        taskQueue,
        'flow-control-debounce',
        debounce,
        [
          [[1], [2], [3]],
          [[4], [5]],
        ],
        2,
      );
    }
    const batch = pipeline('batch-recorded', { steps, batch: { maxSize: 2, maxWait: '1s' } }).step('take');
    if (wanted('flow-control-batch')) {
      await record(client, taskQueue, 'flow-control-batch', batch, [[[1], [2], [3], [4], [5]]], 3);
    }
    const dedupe = pipeline('dedupe-recorded', { steps, dedupe: { window: '1m' } }).step('take');
    if (wanted('flow-control-dedupe')) {
      await record(client, taskQueue, 'flow-control-dedupe', dedupe, [[[1], [2], [3]]], 1);
    }
    const throttle = pipeline('throttle-recorded', {
      steps,
      throttle: { limit: 2, period: '1s' },
    }).step('take');
    // Run with no names, this records both throttle files with the workflow of today (the patch in both).
    for (const name of ['flow-control-throttle', 'flow-control-throttle-started-at']) {
      if (wanted(name)) await record(client, taskQueue, name, throttle, [[[1], [2], [3], [4], [5]]], 5);
    }
  });
}

if (require.main === module) runScript(main);

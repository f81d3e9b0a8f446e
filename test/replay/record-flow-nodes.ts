/*
 * Records runs that use the node kinds of child pipelines, waiting steps and chains:
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-flow-nodes.ts
 *
 * - child-pipeline.json: a parent whose child pipeline completes, then a second child that fails (the
 *   child's saga, then the parent's);
 * - sleep-waitfor.json: a sleep, a waitFor answered by a signal, a waitFor that times out and continues;
 * - chain.json: a run whose `.then()` starts the next run (with a jobId and a delay);
 * - chained-delay.json: that next run, which waits for its delay first.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { pipeline } from '../../src/pipeline';
import { writeHistoryFile } from './history-file';
import { runScript, withRecordingWorker } from './recording-env';
import { waitFor } from '../helpers/wait-for';

const steps = {
  async add(x: number) {
    return x + 1;
  },
  async double(x: number) {
    return x * 2;
  },
  async boom() {
    throw ApplicationFailure.create({ type: 'Boom', message: 'boom', nonRetryable: true });
  },
  async undo(..._args: unknown[]) {
    return undefined;
  },
};

async function save(client: Client, workflowId: string, name: string): Promise<void> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const file = path.join(__dirname, 'histories', `${name}.json`);
  await writeHistoryFile(file, history);
  console.log(`recorded ${name}: ${history.events?.length} events -> ${path.relative(process.cwd(), file)}`);
}

async function main(): Promise<void> {
  await withRecordingWorker(steps, async ({ client, taskQueue }) => {
    const pipelines = new PipelineClient(client, { taskQueue, steps });

    const ok = pipeline('child-ok', { steps }).step('double', { compensate: 'undo' });
    const failing = pipeline('child-fails', { steps }).step('double', { compensate: 'undo' }).step('boom');
    const parent = pipeline('child-pipeline', { steps })
      .step('add', { compensate: 'undo' })
      .pipeline('first', ok, { compensate: 'undo' })
      .pipeline('second', failing);
    await pipelines.run(parent, [1], { workflowId: 'replay-child-pipeline' }).catch(() => undefined);
    await save(client, 'replay-child-pipeline', 'child-pipeline');

    const waits = pipeline('sleep-waitfor', { steps })
      .step('add')
      .sleep('nap', 500)
      .waitFor('approval', { signal: 'approve', timeout: '1m' })
      .waitFor('optional', { signal: 'extra', timeout: 500, onTimeout: 'continue' })
      .step('double');
    const handle = await pipelines.start(waits, [1], { workflowId: 'replay-sleep-waitfor' });
    await waitFor('the run to wait for approval', async () => {
      const p = await pipelines.progress(handle.workflowId);
      return p.waiting?.[0]?.step === 'approval' ? true : undefined;
    });
    await pipelines.signal(handle.workflowId, 'approve', 21);
    await handle.result();
    await save(client, 'replay-sleep-waitfor', 'sleep-waitfor');

    const next = pipeline('chained', { steps }).step('double');
    const chain = pipeline('chain', { steps })
      .step('add')
      .then(next, { delay: 500, jobId: '{run}-next-{time}' });
    const result = await (await pipelines.start(chain, [1], { workflowId: 'replay-chain' })).result();
    const chained = result.chained![0]!.workflowId;
    await client.workflow.getHandle(chained).result();
    await save(client, 'replay-chain', 'chain');
    await save(client, chained, 'chained-delay');
  });
}

if (require.main === module) runScript(main);

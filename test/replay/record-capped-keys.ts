/*
 * Records capped keys under a total (`maxConcurrentTotal`, round-robin) and the `whenFull` policies:
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-capped-keys.ts
 *
 * Pipeline `capped-recorded` (1 per key, 1 in all, `cancel-in-progress`): A0 holds the one slot; B0 queues
 * (the total is full); A1 queues and has A0 cancelled (its step heartbeats, learns it and stops); when A0
 * gives its slot back, B0 gets it before A1 (round-robin), then A1.
 * - capped-keys-semaphore.json: the pipeline's one semaphore (the cancel request, the grants in turn);
 * - capped-keys-cancelled.json: A0, cancelled while it held its slot (its step cancelled and waited for);
 * - capped-keys-queued.json: A1, queued then granted.
 * Pipeline `skip-recorded` (1 per key, `skip`): a second run of a held key.
 * - capped-keys-skipped.json: that run, skipped (reason `concurrency`) with no step run.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { pipeline } from '../../src/pipeline';
import { concurrencyTotalSemaphoreId, waitingQuery } from '../../src/workflows/semaphore/semaphore-defs';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { runScript, withRecordingWorker } from './recording-env';

const started = new Set<string>();
const opened = new Set<string>();
const steps = {
  async hold(_key: string, label: string) {
    started.add(label);
    while (!opened.has(label)) {
      Context.current().heartbeat();
      await Promise.race([Context.current().sleep(50), Context.current().cancelled]);
    }
    return label;
  },
};

async function main(): Promise<void> {
  const capped = pipeline('capped-recorded', {
    steps,
    concurrencyKey: ([k]) => String(k),
    maxConcurrent: 1,
    maxConcurrentTotal: 1,
    whenFull: 'cancel-in-progress',
  }).step('hold', { heartbeat: '1s' });
  const skipping = pipeline('skip-recorded', {
    steps,
    concurrencyKey: ([k]) => String(k),
    whenFull: 'skip',
  }).step('hold', { heartbeat: '1s' });
  await withRecordingWorker(steps, async ({ client, taskQueue }) => {
    const pipelines = new PipelineClient(client, { taskQueue, steps });
    const semaphore = client.workflow.getHandle(concurrencyTotalSemaphoreId('capped-recorded'));
    const inLine = async (workflowId: string) =>
      waitFor(`${workflowId} in line`, async () =>
        (await semaphore.query(waitingQuery)).some((w) => w.workflowId === workflowId) ? true : undefined,
      );
    const isStarted = (label: string) =>
      waitFor(`${label} in its step`, async () => (started.has(label) ? true : undefined));
    const a0 = await pipelines.start(capped, ['A', 'A0'], { workflowId: 'replay-capped-keys-cancelled' });
    await isStarted('A0');
    const b0 = await pipelines.start(capped, ['B', 'B0'], { workflowId: `replay-capped-b0-${Date.now()}` });
    await inLine(b0.workflowId);
    const a1 = await pipelines.start(capped, ['A', 'A1'], { workflowId: 'replay-capped-keys-queued' });
    await a0.result().catch(() => undefined);
    await isStarted('B0');
    opened.add('B0');
    await b0.result();
    await isStarted('A1');
    opened.add('A1');
    await a1.result();

    const holder = await pipelines.start(skipping, ['K', 'holder'], {
      workflowId: `replay-skip-holder-${Date.now()}`,
    });
    await isStarted('holder');
    const skipped = await pipelines.start(skipping, ['K', 'skipped'], {
      workflowId: 'replay-capped-keys-skipped',
    });
    const result = await skipped.result();
    if (result.status !== 'skipped') throw new Error(`expected a skipped run, got ${JSON.stringify(result)}`);
    opened.add('holder');
    await holder.result();

    const dir = path.join(__dirname, 'histories');
    for (const [name, history] of [
      ['capped-keys-semaphore', await semaphore.fetchHistory()],
      ['capped-keys-cancelled', await a0.fetchHistory()],
      ['capped-keys-queued', await a1.fetchHistory()],
      ['capped-keys-skipped', await skipped.fetchHistory()],
    ] as const) {
      const file = path.join(dir, `${name}.json`);
      await writeHistoryFile(file, history);
      console.log(
        `recorded ${name}: ${history.events?.length} events -> ${path.relative(process.cwd(), file)}`,
      );
    }
    await semaphore.terminate('recorded');
  });
}

if (require.main === module) runScript(main);

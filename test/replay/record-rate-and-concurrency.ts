/*
 * Records runs that use the pipeline options added with rate limits and concurrency keys:
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-rate-and-concurrency.ts
 *
 * - rate-limited.json: `items`, then a step and a map with `rateLimit` (their activities scheduled on the
 *   `<queue>--rate--<activity>` task queues).
 * - concurrency-key-queued.json: a run with a concurrency key (maxConcurrent 1) that waited in line
 *   behind another run of its key (`tflowQueueForSlot` answered `queued`, then `slotGranted` came).
 * - concurrency-semaphore.json: the key's semaphore (`jobSemaphoreWorkflow`) queueing and granting.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { pipeline } from '../../src/pipeline';
import { concurrencySemaphoreId } from '../../src/workflows/semaphore/semaphore-defs';
import { writeHistoryFile } from './history-file';
import { runScript, withRecordingWorker } from './recording-env';

const steps = {
  async items(n: number) {
    return Array.from({ length: n }, (_, i) => i);
  },
  async tick(x: unknown) {
    return x;
  },
  async slow(x: unknown) {
    await new Promise((r) => setTimeout(r, 1000));
    return x;
  },
};

const rateLimited = pipeline('rate-limited', { steps })
  .step('items')
  .step('tick', { rateLimit: '20/s' })
  .map('tick', { id: 'each', concurrency: 2, rateLimit: '20/s' });

async function main(): Promise<void> {
  const key = `key-${Date.now()}`;
  const oneAtATime = pipeline('one-at-a-time', { steps, concurrencyKey: () => key }).step('slow');
  await withRecordingWorker(
    steps,
    async ({ client, taskQueue }) => {
      const pipelines = new PipelineClient(client, { taskQueue, steps });
      const rate = await pipelines.start(rateLimited, [3], { workflowId: `replay-rate-${Date.now()}` });
      await rate.result();
      const first = await pipelines.start(oneAtATime, [], { workflowId: `replay-key-first-${Date.now()}` });
      const queued = await pipelines.start(oneAtATime, [], { workflowId: `replay-key-queued-${Date.now()}` });
      await Promise.all([first.result(), queued.result()]);
      const semaphore = client.workflow.getHandle(concurrencySemaphoreId('one-at-a-time', key));
      const dir = path.join(__dirname, 'histories');
      for (const [name, history] of [
        ['rate-limited', await rate.fetchHistory()],
        ['concurrency-key-queued', await queued.fetchHistory()],
        ['concurrency-semaphore', await semaphore.fetchHistory()],
      ] as const) {
        const file = path.join(dir, `${name}.json`);
        await writeHistoryFile(file, history);
        console.log(
          `recorded ${name}: ${history.events?.length} events -> ${path.relative(process.cwd(), file)}`,
        );
      }
      await semaphore.terminate('recorded');
    },
    undefined,
    [rateLimited],
  );
}

if (require.main === module) runScript(main);

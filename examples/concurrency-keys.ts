/*
 * A concurrency key: at most 2 runs per customer at once, whoever starts them; the others wait in line,
 * and other customers are not held up. Runs started together ask for a slot in the order their first workflow
 * task runs, so the reports may start in another order than they were started.
 *
 *   npx tsx examples/concurrency-keys.ts     # TEMPORAL_ADDRESS=... to use a running server
 */
import { randomUUID } from 'node:crypto';
import { PipelineClient, pipeline } from 'temporal-flow';
import { runExample } from './example-env';

const running = new Map<string, number>();
const steps = {
  async rebuildReport(customer: string, n: number) {
    const now = (running.get(customer) ?? 0) + 1;
    running.set(customer, now);
    console.log(`${customer} report ${n} starts (${now} running for ${customer})`);
    await new Promise((r) => setTimeout(r, 500));
    running.set(customer, (running.get(customer) ?? 1) - 1);
    return `${customer} report ${n}`;
  },
};

// The suffix keeps each run of this example on a semaphore of its own (see docs/pipelines.md).
const suffix = randomUUID().slice(0, 4);
export const reports = pipeline('example-reports', {
  steps,
  concurrencyKey: ([customer]) => `${String(customer)}-${suffix}`,
  maxConcurrent: 2,
}).step('rebuildReport');

if (require.main === module) {
  void runExample('concurrency-keys', async ({ client, taskQueue, withWorker }) => {
    const pipelines = new PipelineClient(client, { taskQueue, steps });
    await withWorker({ steps }, async () => {
      const runs = [];
      for (let n = 0; n < 5; n++) runs.push(await pipelines.start(reports, ['acme', n]));
      runs.push(await pipelines.start(reports, ['globex', 0]));
      for (const run of runs) console.log(`done: ${String((await run.result()).output)}`);
    });
  }).catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}

/*
 * A rate-limited step: `pushContact` calls an API that allows 5 calls a second. The map would start 20 at
 * once; the step's own task queue (polled at 5/s, enforced by the Temporal server across all workers)
 * paces them.
 *
 *   npx tsx examples/rate-limits.ts          # TEMPORAL_ADDRESS=... to use a running server
 */
import { PipelineClient, pipeline } from 'temporal-flow';
import { runExample } from './example-env';

const startedAt: number[] = [];
const steps = {
  async listContacts(n: number) {
    return Array.from({ length: n }, (_, i) => `contact-${i}`);
  },
  async pushContact(contact: string) {
    startedAt.push(Date.now());
    return `pushed ${contact}`;
  },
};

export const crmSync = pipeline('example-crm-sync', { steps })
  .step('listContacts')
  .map('pushContact', { concurrency: 20, rateLimit: '5/s' });

if (require.main === module) {
  void runExample('rate-limits', async ({ client, taskQueue, withWorker }) => {
    const pipelines = new PipelineClient(client, { taskQueue, steps });
    // The worker is given the pipeline, so it also polls the rate-limited step's queue at its rate.
    await withWorker({ steps, pipelines: [crmSync] }, async () => {
      const output = (await pipelines.run(crmSync, [20])) as string[];
      const seconds = (Math.max(...startedAt) - Math.min(...startedAt)) / 1000;
      console.log(`${output.length} contacts pushed; their calls started over ${seconds.toFixed(1)} s (5/s)`);
    });
  }).catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}

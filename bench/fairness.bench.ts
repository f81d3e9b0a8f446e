/*
 * Fairness: two tenants on one task queue, one flooding it. Tenant A starts `--flood` runs at once, then
 * tenant B starts `--runs` runs; each run is a one-step pipeline whose step takes `--step-ms`, served by
 * one worker with `--slots` activity slots, so A's backlog holds the queue for a while. Measured: B's run
 * latency (start to result), p50 and p95, with each run given its tenant as `fairnessKey` (ours) against
 * the same runs with no fairness key (baseline: Temporal dispatches first come first served, so B waits
 * behind A's whole backlog). Both sides on one embedded server of its own with fairness turned on
 * (`matching.enableFairness`), a task queue each, sides in turn over `--rounds` rounds. Nothing asserts on
 * time: the ratio is the figure.
 *
 *   npm run bench -- fairness
 *   npx tsx bench/fairness.bench.ts --flood 300 --runs 10 --slots 4 --step-ms 50 --rounds 2
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { readEnv } from '../src/config';
import { DevServer } from '../src/devserver';
import { pipeline } from '../src/pipeline';
import { PipelineClient } from '../src/client/runs/pipeline-client';
import { createWorker } from '../src/worker/create-worker';
import { buildWorkflowBundle } from '../src/worker/workflow-bundle';
import { intArg, reportRows, type SummaryRow } from './summary';
import { percentile } from './timing';

const FLOOD = intArg('flood', 300);
const RUNS = intArg('runs', 10);
const SLOTS = intArg('slots', 4);
const STEP_MS = intArg('step-ms', 50);
const ROUNDS = intArg('rounds', 2);
const BENCH = 'fairness';

const steps = {
  async work(x: number): Promise<number> {
    await new Promise((resolve) => setTimeout(resolve, STEP_MS));
    return x + 1;
  },
};
const job = pipeline('bench-fairness', { steps }).step('work');

type Side = 'keys' | 'none';

async function main(): Promise<void> {
  const env = readEnv();
  // Its own server: fairness is a server setting, off by default (Temporal's).
  const server = await DevServer.start({
    home: env.home,
    cliPath: env.temporalCli,
    searchPath: env.path,
    namespace: env.namespace,
    db: 'memory',
    port: 0,
    uiPort: false,
    fairness: true,
  });
  const native = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: env.namespace });
  const bundle = await buildWorkflowBundle();
  const latencies: Record<Side, number[]> = { keys: [], none: [] };
  const drains: Record<Side, number[]> = { keys: [], none: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order: Side[] = round % 2 === 0 ? ['none', 'keys'] : ['keys', 'none'];
      for (const side of order) {
        const taskQueue = `bench-fairness-${side}-${randomUUID()}`;
        const worker = await createWorker({
          connection: native,
          namespace: env.namespace,
          taskQueue,
          steps,
          workflowBundle: bundle,
          workerOptions: { maxConcurrentActivityTaskExecutions: SLOTS },
        });
        const running = worker.run();
        try {
          const runs = new PipelineClient(client, { taskQueue });
          const tenant = (name: string) => (side === 'keys' ? { priority: { fairnessKey: name } } : {});
          const t0 = Date.now();
          const flood = await Promise.all(
            Array.from({ length: FLOOD }, (_, i) => runs.start(job, [i], tenant('tenant-a'))),
          );
          const b = await Promise.all(
            Array.from({ length: RUNS }, async (_, i) => {
              const started = Date.now();
              const handle = await runs.start(job, [i], tenant('tenant-b'));
              await handle.result();
              return Date.now() - started;
            }),
          );
          await Promise.all(flood.map((h) => h.result()));
          latencies[side].push(...b);
          drains[side].push(Date.now() - t0);
          console.log(
            `round ${round + 1} ${side === 'keys' ? 'with fairness keys' : 'no fairness key'}: tenant B p50 ${percentile(b, 50).toFixed(0)} ms, p95 ${percentile(b, 95).toFixed(0)} ms; A's ${FLOOD} runs drained in ${Date.now() - t0} ms`,
          );
        } finally {
          worker.shutdown();
          await running;
        }
      }
    }
  } finally {
    await connection.close();
    await native.close();
    await server.stop();
  }
  const label = (s: Side) => (s === 'keys' ? 'runs with fairness keys' : 'runs without a fairness key');
  const row = (metric: string, unit: string, of: (s: Side) => number): SummaryRow => ({
    bench: BENCH,
    metric,
    unit,
    ours: label('keys'),
    oursValue: of('keys'),
    baseline: label('none'),
    baselineValue: of('none'),
    ratio: of('keys') / of('none'),
  });
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  reportRows([
    row(
      `tenant B latency p50, behind ${FLOOD} runs of tenant A (${SLOTS} slots, ${STEP_MS} ms steps)`,
      'ms',
      (s) => percentile(latencies[s], 50),
    ),
    row(`tenant B latency p95, behind ${FLOOD} runs of tenant A`, 'ms', (s) => percentile(latencies[s], 95)),
    row(`tenant A's ${FLOOD} runs drained (mean of rounds)`, 'ms', (s) => mean(drains[s])),
  ]);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

/*
 * Pipeline interpreter overhead: N runs of a 3-step no-op pipeline through `pipelineWorkflow`, against
 * a hand-written workflow calling the same three activities (bench/baseline-workflows.ts). Same server,
 * same process, same worker settings; the two alternate in rounds (A B B A ...) so that drift in the
 * machine's load hits both alike. Target: the pipeline costs at most 10% more wall time.
 *
 *   npm run bench -- pipeline-overhead            # 200 runs each
 *   TEMPORAL_ADDRESS=localhost:7233 npx tsx bench/pipeline-overhead.bench.ts --runs 1000 --batch 50
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { readEnv } from '../src/config';
import { PipelineClient } from '../src/client/pipeline-client';
import { pipeline } from '../src/pipeline';
import { createWorker, WORKFLOWS_PATH, WORKFLOW_INTERCEPTOR_MODULES } from '../src/worker/create-worker';
import { noopSteps } from './noop-steps';

/** `--name value` from argv, as a positive integer. */
function intArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

const RUNS = intArg('runs', 200);
const BATCH = intArg('batch', 10);
const TARGET_OVERHEAD = 0.1;

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const address = readEnv().temporalAddress ?? 'localhost:7233';
  const quiet = { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} };
  const [pipelineBundle, baselineBundle] = await Promise.all([
    bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
      logger: quiet,
    }),
    bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'baseline-workflows.ts'), logger: quiet }),
  ]);
  const native = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const pipelineQueue = `bench-pipeline-${randomUUID()}`;
  const baselineQueue = `bench-baseline-${randomUUID()}`;
  // Same settings on both sides: SDK defaults, one worker each, same process.
  const pipelineWorker = await createWorker({
    connection: native,
    taskQueue: pipelineQueue,
    steps: noopSteps,
    workflowBundle: pipelineBundle,
  });
  const baselineWorker = await Worker.create({
    connection: native,
    taskQueue: baselineQueue,
    activities: noopSteps,
    workflowBundle: baselineBundle,
  });

  const p = pipeline('bench-3-noop', { steps: noopSteps }).step('stepA').step('stepB').step('stepC');
  const pipelines = new PipelineClient(client, { taskQueue: pipelineQueue });
  const sides = {
    pipeline: async (x: number) => {
      const out = await pipelines.run(p, [x], { workflowId: `bench-p-${randomUUID()}` });
      if (out !== x + 3) throw new Error(`pipeline returned ${String(out)}`);
    },
    baseline: async (x: number) => {
      const out = await client.workflow.execute('baselineWorkflow', {
        taskQueue: baselineQueue,
        workflowId: `bench-b-${randomUUID()}`,
        args: [x],
      });
      if (out !== x + 3) throw new Error(`baseline returned ${String(out)}`);
    },
  };
  type Side = keyof typeof sides;
  const elapsed: Record<Side, number> = { pipeline: 0, baseline: 0 };
  const done: Record<Side, number> = { pipeline: 0, baseline: 0 };
  /** pipeline time / baseline time of each round: its median shrugs off bursts of load on a shared host. */
  const roundRatios: number[] = [];
  const batch = async (side: Side, n: number) => {
    const start = performance.now();
    await Promise.all(Array.from({ length: n }, (_, i) => sides[side](i)));
    return performance.now() - start;
  };

  await Promise.all([pipelineWorker.run(), baselineWorker.run(), measure()]);

  async function measure() {
    try {
      // Warm-up (JIT, workflow caches, task queue creation): not counted.
      await batch('pipeline', BATCH);
      await batch('baseline', BATCH);
      let round = 0;
      while (done.pipeline < RUNS) {
        const n = Math.min(BATCH, RUNS - done.pipeline);
        const order: Side[] = round % 2 === 0 ? ['pipeline', 'baseline'] : ['baseline', 'pipeline'];
        const took: Record<Side, number> = { pipeline: 0, baseline: 0 };
        for (const side of order) {
          took[side] = await batch(side, n);
          elapsed[side] += took[side];
          done[side] += n;
        }
        roundRatios.push(took.pipeline / took.baseline);
        round++;
      }
    } finally {
      pipelineWorker.shutdown();
      baselineWorker.shutdown();
    }
  }

  const throughput = (side: Side) => (done[side] / elapsed[side]) * 1000;
  const ratio = elapsed.pipeline / elapsed.baseline;
  const sorted = [...roundRatios].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(
    `runs: ${RUNS} per side, ${roundRatios.length} rounds of ${BATCH} concurrent runs, sides alternating (A B, B A, ...)`,
  );
  console.log(
    `pipelineWorkflow : ${throughput('pipeline').toFixed(1)} runs/s (${elapsed.pipeline.toFixed(0)} ms)`,
  );
  console.log(
    `hand-written     : ${throughput('baseline').toFixed(1)} runs/s (${elapsed.baseline.toFixed(0)} ms)`,
  );
  console.log(
    `wall-time ratio  : ${ratio.toFixed(3)} total, ${median.toFixed(3)} median of rounds (min ${sorted[0]!.toFixed(3)}, max ${sorted[sorted.length - 1]!.toFixed(3)})`,
  );
  console.log(
    `overhead         : ${((ratio - 1) * 100).toFixed(1)}% total, ${((median - 1) * 100).toFixed(1)}% median; target <= ${TARGET_OVERHEAD * 100}%: ${ratio <= 1 + TARGET_OVERHEAD ? 'MET' : 'NOT MET'} (total)`,
  );
  await native.close();
  await connection.close();
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

/*
 * What bench/pipeline-overhead.bench.ts, bench/run-cost.bench.ts and bench/bulk.bench.ts share: the SDK runtime, the
 * connections, the two bundles (temporal-flow's, and the hand-written baselines of baseline-workflows.ts),
 * the 3-step no-op pipelines, and a pipeline worker beside a baseline worker on fresh task queues.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type WorkerOptions,
} from '@temporalio/worker';
import { readEnv } from '../src/config';
import { pipeline } from '../src/pipeline';
import { createWorker, type Steps } from '../src/worker/create-worker';
import { buildWorkflowBundle } from '../src/worker/workflow-bundle';
import { noopSteps } from './noop-steps';

/** The hand-written workflows of baseline-workflows.ts. */
export type BaselineWorkflow = 'baselineWorkflow' | 'baselineLocalWorkflow';

/** A pipeline worker and a baseline worker, each on a task queue of its own. */
export interface NoopWorkers {
  pipelineQueue: string;
  baselineQueue: string;
  pipelineWorker: Worker;
  baselineWorker: Worker;
}

export interface NoopSides {
  address: string;
  native: NativeConnection;
  client: Client;
  /** The 3-step no-op pipeline with regular steps, and with `localSteps: true`. */
  regular: ReturnType<typeof noopPipeline>;
  local: ReturnType<typeof noopPipeline>;
  /**
   * Both workers on new queues; `workerOptions` go to both (e.g. `debugMode`); `steps` are the pipeline
   * worker's (the no-op steps unless given).
   */
  startWorkers(workerOptions?: Pick<WorkerOptions, 'debugMode'>, steps?: Steps): Promise<NoopWorkers>;
  /** The code of the two workflow bundles (temporal-flow's, the hand-written baselines'), e.g. to read a profile. */
  bundles: { pipeline: string; baseline: string };
  /** Runs a hand-written workflow on `taskQueue` with `x`, to its result. */
  handWritten(workflow: BaselineWorkflow, taskQueue: string): (x: number) => Promise<number>;
  /** Starts a hand-written workflow on `taskQueue` with `x`; its workflow id. */
  startHandWritten(workflow: BaselineWorkflow, taskQueue: string): (x: number) => Promise<string>;
  close(): Promise<void>;
}

const noopPipeline = (name: string, localSteps: boolean) =>
  pipeline(name, { steps: noopSteps, localSteps }).step('stepA').step('stepB').step('stepC');

/** Installs the runtime (warnings only), connects to TEMPORAL_ADDRESS and bundles both sides. */
export async function noopSides(): Promise<NoopSides> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const address = readEnv().temporalAddress ?? 'localhost:7233';
  const quiet = { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} };
  const [pipelineBundle, baselineBundle] = await Promise.all([
    buildWorkflowBundle(quiet),
    bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'baseline-workflows.ts'), logger: quiet }),
  ]);
  const native = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  return {
    address,
    native,
    client,
    regular: noopPipeline('bench-3-noop', false),
    local: noopPipeline('bench-3-noop-local', true),
    bundles: { pipeline: pipelineBundle.code, baseline: baselineBundle.code },
    async startWorkers(workerOptions = {}, steps = noopSteps) {
      const pipelineQueue = `bench-pipeline-${randomUUID()}`;
      const baselineQueue = `bench-baseline-${randomUUID()}`;
      const pipelineWorker = await createWorker({
        connection: native,
        taskQueue: pipelineQueue,
        steps,
        workflowBundle: { code: pipelineBundle.code },
        workerOptions,
      });
      const baselineWorker = await Worker.create({
        ...workerOptions,
        connection: native,
        taskQueue: baselineQueue,
        activities: noopSteps,
        workflowBundle: { code: baselineBundle.code },
      });
      return { pipelineQueue, baselineQueue, pipelineWorker, baselineWorker };
    },
    handWritten: (workflow, taskQueue) => (x) =>
      client.workflow.execute<(x: number) => Promise<number>>(workflow, {
        taskQueue,
        workflowId: `bench-b-${randomUUID()}`,
        args: [x],
      }),
    startHandWritten: (workflow, taskQueue) => async (x) =>
      (
        await client.workflow.start<(x: number) => Promise<number>>(workflow, {
          taskQueue,
          workflowId: `bench-b-${randomUUID()}`,
          args: [x],
        })
      ).workflowId,
    async close() {
      await native.close();
      await connection.close();
    },
  };
}

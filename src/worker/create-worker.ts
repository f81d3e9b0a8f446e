import path from 'node:path';
import type { PayloadCodec } from '@temporalio/common';
import { Worker, type NativeConnection, type WorkerOptions, type InjectedSinks } from '@temporalio/worker';
import { codecDataConverter } from '../codec/data-converter';
import { TemporalFlowError } from '../errors';
import type { RunFinishedEvent, TflowSinks } from '../workflows/sinks';
import { schedulerActivities } from '../activities/scheduler-activities';
import { attemptInterceptor } from './attempt-interceptor';
import { occurrenceInterceptor } from './step-idempotency';
import type { PipelineLike } from '../pipeline/builder';
import { createRateLimitedWorkers, rateLimitsOf, withCompanions } from './rate-limited-workers';

/** Activities: functions that take the previous step's output and return the next step's input. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- steps take any arguments; their types are the user's
export type Steps = Record<string, (...args: any[]) => unknown>;

export interface CreateWorkerOptions {
  connection: NativeConnection;
  taskQueue: string;
  /** The user's steps (activities). Built-in activities are added to them. */
  steps: Steps;
  /** @default 'default' */
  namespace?: string;
  /** A pre-built workflow bundle (`bundleWorkflowCode`) to skip bundling at start-up, e.g. in tests. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * Runs every payload (step arguments and results, run input and result, failure details) through
   * this codec, e.g. an {@link AesGcmPayloadCodec}. Clients need the same codec ({@link codecDataConverter}).
   */
  codec?: PayloadCodec;
  /**
   * The pipelines this worker runs, for their rate-limited steps (`step(name, { rateLimit })`): the worker
   * also polls each such step's own task queue, at its rate (Temporal's task-queue rate limit, held by the
   * server across all workers). Give every worker of the task queue the same pipelines.
   */
  pipelines?: readonly PipelineLike[];
  /** Called once per finished run (not on replay): logs, metrics, notifications. */
  onRunFinished?: (event: RunFinishedEvent) => void;
  /** Any other Temporal worker option (concurrency, identity, interceptors, ...). */
  workerOptions?: Omit<
    WorkerOptions,
    'connection' | 'taskQueue' | 'namespace' | 'activities' | 'workflowBundle' | 'workflowsPath' | 'sinks'
  >;
}

/**
 * Path of the workflows entry point: `src/workflows/index.ts` when running from source (tsx, tests),
 * `dist/workflows/index.js` when built. The SDK bundles it with webpack at worker start.
 */
export const WORKFLOWS_PATH = path.resolve(
  __dirname,
  '../workflows',
  __filename.endsWith('.ts') ? 'index.ts' : 'index.js',
);

/**
 * Workflow interceptor modules temporal-flow needs in the workflow bundle (the occurrence header behind
 * `stepIdempotencyKey()`). createWorker adds them when it bundles; pass them to `bundleWorkflowCode`'s
 * `workflowInterceptorModules` when you build a bundle yourself.
 */
export const WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [
  path.resolve(
    __dirname,
    '../workflows',
    __filename.endsWith('.ts') ? 'idempotency-interceptor.ts' : 'idempotency-interceptor.js',
  ),
];

/**
 * Creates the SDK's `Worker` with the pipeline interpreter and the user's steps registered, so that
 * `run()`, `runUntil()` and `shutdown()` work as Temporal users know them.
 */
export async function createWorker(opts: CreateWorkerOptions): Promise<Worker> {
  const clash = Object.keys(opts.steps).filter((name) => name in schedulerActivities);
  if (clash.length > 0) {
    throw new TemporalFlowError(
      'RESERVED_STEP_NAME',
      `step name${clash.length > 1 ? 's' : ''} ${clash.map((n) => `"${n}"`).join(', ')} ${clash.length > 1 ? 'clash' : 'clashes'} with temporal-flow's built-in activities: rename the step`,
    );
  }
  const sinks: InjectedSinks<TflowSinks> = {
    tflow: {
      runFinished: {
        fn: (_info, event) => opts.onRunFinished?.(event),
        callDuringReplay: false,
      },
    },
  };
  const limits = rateLimitsOf(opts.pipelines ?? [], opts.steps);
  const shared = {
    ...opts.workerOptions,
    ...(opts.codec
      ? { dataConverter: codecDataConverter(opts.codec, opts.workerOptions?.dataConverter) }
      : {}),
    connection: opts.connection,
    namespace: opts.namespace ?? 'default',
    // Ours last, i.e. innermost: it reads the step's own error and attempt before anything else.
    activityInterceptors: [
      ...(opts.workerOptions?.interceptors?.activity ?? []),
      occurrenceInterceptor,
      attemptInterceptor,
    ],
  };
  const { activityInterceptors, ...base } = shared;
  const main = await Worker.create({
    ...base,
    taskQueue: opts.taskQueue,
    activities: { ...opts.steps, ...schedulerActivities },
    interceptors: {
      ...opts.workerOptions?.interceptors,
      activity: activityInterceptors,
      // A prebuilt bundle carries its own (the SDK warns when both are given).
      ...(opts.workflowBundle
        ? {}
        : {
            workflowModules: [
              ...(opts.workerOptions?.interceptors?.workflowModules ?? []),
              ...WORKFLOW_INTERCEPTOR_MODULES,
            ],
          }),
    },
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    sinks,
  });
  const companions = await createRateLimitedWorkers(
    { ...base, taskQueue: opts.taskQueue, interceptors: { activity: activityInterceptors } },
    opts.steps,
    limits,
  );
  return withCompanions(main, companions);
}

import type { PayloadCodec } from '@temporalio/common';
import {
  Runtime,
  Worker,
  type NativeConnection,
  type WorkerOptions,
  type InjectedSinks,
} from '@temporalio/worker';
import { codecDataConverter } from '../codec/data-converter';
import { TemporalFlowError } from '../errors';
import type { RunFinishedEvent, TflowSinks } from '../workflows/sinks';
import { schedulerActivities } from '../activities/scheduler-activities';
import { attemptInterceptor } from './attempt-interceptor';
import { occurrenceInterceptor } from './step-idempotency';
import {
  lacksInterceptorModules,
  prebuiltWorkflowBundle,
  WORKFLOW_INTERCEPTOR_MODULES,
  WORKFLOWS_PATH,
} from './workflow-bundle';

export { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH };

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
  /**
   * A pre-built workflow bundle (`bundleWorkflowCode` with {@link WORKFLOW_INTERCEPTOR_MODULES}), e.g. in
   * tests. @default the bundle `npm run build` ships in `dist/workflow-bundle.js` when the package runs
   * from its build (no webpack at start-up); from source, or with your own
   * `workerOptions.interceptors.workflowModules`, the workflows are bundled when the worker starts.
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * Runs every payload (step arguments and results, run input and result, failure details) through
   * this codec, e.g. an {@link AesGcmPayloadCodec}. Clients need the same codec ({@link codecDataConverter}).
   */
  codec?: PayloadCodec;
  /** Called once per finished run (not on replay): logs, metrics, notifications. */
  onRunFinished?: (event: RunFinishedEvent) => void;
  /** Any other Temporal worker option (concurrency, identity, interceptors, ...). */
  workerOptions?: Omit<
    WorkerOptions,
    'connection' | 'taskQueue' | 'namespace' | 'activities' | 'workflowBundle' | 'workflowsPath' | 'sinks'
  >;
}

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
  if (opts.workflowBundle && lacksInterceptorModules(opts.workflowBundle)) {
    Runtime.instance().logger.warn(
      "createWorker: the workflowBundle lacks temporal-flow's workflow interceptor modules, so stepIdempotencyKey() falls back to <workflow id>/<step path>, which a redrive changes; build it with bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES] })",
    );
  }
  // The shipped bundle holds only our interceptor modules: with the user's own, bundle at start.
  const workflowBundle =
    opts.workflowBundle ??
    (opts.workerOptions?.interceptors?.workflowModules?.length ? undefined : prebuiltWorkflowBundle());
  const sinks: InjectedSinks<TflowSinks> = {
    tflow: {
      runFinished: {
        fn: (_info, event) => opts.onRunFinished?.(event),
        callDuringReplay: false,
      },
    },
  };
  return Worker.create({
    ...opts.workerOptions,
    ...(opts.codec
      ? { dataConverter: codecDataConverter(opts.codec, opts.workerOptions?.dataConverter) }
      : {}),
    connection: opts.connection,
    namespace: opts.namespace ?? 'default',
    taskQueue: opts.taskQueue,
    activities: { ...opts.steps, ...schedulerActivities },
    interceptors: {
      ...opts.workerOptions?.interceptors,
      // Ours last, i.e. innermost: it reads the step's own error and attempt before anything else.
      activity: [
        ...(opts.workerOptions?.interceptors?.activity ?? []),
        occurrenceInterceptor,
        attemptInterceptor,
      ],
      // A prebuilt bundle carries its own (the SDK warns when both are given).
      ...(workflowBundle
        ? {}
        : {
            workflowModules: [
              ...(opts.workerOptions?.interceptors?.workflowModules ?? []),
              ...WORKFLOW_INTERCEPTOR_MODULES,
            ],
          }),
    },
    ...(workflowBundle ? { workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    sinks,
  });
}

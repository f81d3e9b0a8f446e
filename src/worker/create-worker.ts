import type { PayloadCodec } from '@temporalio/common';
import {
  Runtime,
  Worker,
  type NativeConnection,
  type WorkerOptions,
  type InjectedSinks,
} from '@temporalio/worker';
import { codecDataConverter } from '../codec/data-converter';
import { describeValue, InvalidArgumentError, TemporalFlowError } from '../errors';
import type { RunFinishedEvent, RunStartedEvent, TflowSinks } from '../workflows/sinks';
import { schedulerActivities } from '../activities/scheduler-activities';
import { createAlertActivities, type AlertDelivery } from '../activities/alerts/alert-activities';
import { attemptInterceptor } from './attempt-interceptor';
import { occurrenceInterceptor } from './step-idempotency';
import { logAlertSent, logEvent, logRunFinished, runEventFields, TFLOW_EVENTS } from './run-events';
import { stepRetryInterceptor, type StepRetriedEvent } from './step-retries';
import type { PipelineLike } from '../pipeline/builder';
import { createRateLimitedWorkers, rateLimitsOf, withCompanions } from './rate-limited-workers';
import { shareSemaphoreWorker } from './semaphore-worker';
import { CODEC_SEMAPHORE_TASK_QUEUE, SEMAPHORE_TASK_QUEUE } from '../workflows/semaphore/semaphore-defs';
import { slotActivitiesOn } from '../activities/semaphore/slot-activities';
import {
  bundleAtStart,
  lacksInterceptorModules,
  lacksTracingModules,
  prebuiltWorkflowBundle,
  PRELOADED_WORKFLOW_MODULES,
  TRACING_WORKFLOW_INTERCEPTOR_MODULES,
  WORKFLOW_INTERCEPTOR_MODULES,
  WORKFLOWS_PATH,
} from './workflow-bundle';
import { resolveTracing, type TracingOption } from '../client/tracing';
import * as workerTracing from './worker-tracing';

export {
  PRELOADED_WORKFLOW_MODULES,
  TRACING_WORKFLOW_INTERCEPTOR_MODULES,
  WORKFLOW_INTERCEPTOR_MODULES,
  WORKFLOWS_PATH,
};

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
  /**
   * The pipelines this worker runs, for their rate-limited steps (`step(name, { rateLimit })`): the worker
   * also polls each such step's own task queue, at its rate (Temporal's task-queue rate limit, held by the
   * server across all workers). Give every worker of the task queue the same pipelines.
   */
  pipelines?: readonly PipelineLike[];
  /**
   * Called once per started run (its first workflow task; not on replay), e.g. {@link WorkerMetrics.recordRunStarted}.
   * The worker also logs it (`run.started`).
   */
  onRunStarted?: (event: RunStartedEvent) => void;
  /**
   * Called once per finished run (not on replay): metrics, notifications. The worker also logs it
   * (`run.finished`, or `run.skipped`).
   */
  onRunFinished?: (event: RunFinishedEvent) => void;
  /**
   * Called when a step's retry starts on this worker, e.g. {@link WorkerMetrics.recordStepRetried}. The
   * worker also logs it (`step.retried`).
   */
  onStepRetried?: (event: StepRetriedEvent) => void;
  /**
   * OpenTelemetry traces, on Temporal's interceptors (`@temporalio/interceptors-opentelemetry`): a span
   * per run (child of the span that started it through a traced {@link PipelineClient}; a root, carrying
   * the job, for a scheduled run), per step scheduled and per step attempt (step id, attempt, job id,
   * nominal time as attributes). `true` exports as the standard OTEL_* variables say (OTLP over HTTP);
   * `{ spanProcessor, resource }` uses yours. See docs/tracing.md. @default off (no interceptor, no span)
   */
  tracing?: TracingOption;
  /**
   * The task queue of this worker's semaphores (a job's `maxInstances`, a pipeline's `concurrencyKey`):
   * its runs start and ask their semaphores there, and the worker polls it beside `taskQueue` (one poller
   * per connection, namespace and queue, shared by the process's workers), so a semaphore is served while
   * any worker of the namespace runs, whatever queue its runs come from. Every worker whose runs share a
   * pipeline or job must name the same queue and read each other's payloads (the same codec keys).
   * @default `'tflow-semaphores'` ({@link SEMAPHORE_TASK_QUEUE}); with `codec`, `'tflow-semaphores-codec'`
   * ({@link CODEC_SEMAPHORE_TASK_QUEUE}): a worker without the codec could not read those semaphores
   */
  semaphoreTaskQueue?: string;
  /** Called after each attempt at delivering an alert (e.g. {@link AlertMetrics.recordDelivery}). */
  onAlertDelivery?: (delivery: AlertDelivery) => void;
  /** Any other Temporal worker option (concurrency, identity, interceptors, ...). */
  workerOptions?: Omit<
    WorkerOptions,
    'connection' | 'taskQueue' | 'namespace' | 'activities' | 'workflowBundle' | 'workflowsPath' | 'sinks'
  >;
}

/** Names of the built-in activities every worker registers: steps may not take them. */
export const BUILT_IN_ACTIVITY_NAMES: readonly string[] = [
  ...Object.keys(schedulerActivities),
  ...Object.keys(createAlertActivities({ handlers: {}, logAlertSent })),
];

/** Refuses steps named like a built-in activity. */
export function checkStepNames(steps: Steps): void {
  const clash = Object.keys(steps).filter((name) => BUILT_IN_ACTIVITY_NAMES.includes(name));
  if (clash.length > 0) {
    throw new TemporalFlowError(
      'RESERVED_STEP_NAME',
      `step name${clash.length > 1 ? 's' : ''} ${clash.map((n) => `"${n}"`).join(', ')} ${clash.length > 1 ? 'clash' : 'clashes'} with temporal-flow's built-in activities: rename the step`,
    );
  }
}

/**
 * Creates the SDK's `Worker` with the pipeline interpreter and the user's steps registered (and the
 * built-in activities: semaphore, one-off clean-up, alert delivery), so that
 * `run()`, `runUntil()` and `shutdown()` work as Temporal users know them. It logs one line per run
 * started, finished or skipped, per step retried and per alert delivered through the SDK's logger (see
 * {@link logEvent} and {@link JsonLinesLogger}).
 */
export async function createWorker(opts: CreateWorkerOptions): Promise<Worker> {
  checkStepNames(opts.steps);
  const semaphoreQueue = semaphoreQueueOf(opts);
  if (opts.workflowBundle && lacksInterceptorModules(opts.workflowBundle)) {
    Runtime.instance().logger.warn(
      "createWorker: the workflowBundle lacks temporal-flow's workflow interceptor modules, so stepIdempotencyKey() falls back to <workflow id>/<step path>, which a redrive changes; build it with bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES], preloadModules: [...PRELOADED_WORKFLOW_MODULES] })",
    );
  }
  const tracing = resolveTracing(opts.tracing);
  const traced = tracing ? { tracing, parts: workerTracing } : undefined;
  if (tracing && opts.workflowBundle && lacksTracingModules(opts.workflowBundle)) {
    Runtime.instance().logger.warn(
      'createWorker: tracing is on but the workflowBundle lacks the tracing workflow interceptor modules, so runs make no spans and steps start new traces; build it with buildWorkflowBundle(logger, { traced: true }), or add TRACING_WORKFLOW_INTERCEPTOR_MODULES after WORKFLOW_INTERCEPTOR_MODULES',
    );
  }
  // The shipped bundles hold only our interceptor modules: with the user's own, bundle at start, once for
  // this worker and its semaphore worker.
  const workflowBundle =
    opts.workflowBundle ??
    (opts.workerOptions?.interceptors?.workflowModules?.length
      ? undefined
      : prebuiltWorkflowBundle(tracing !== undefined)) ??
    (await bundleAtStart({
      ...(opts.workerOptions?.bundlerOptions ? { bundlerOptions: opts.workerOptions.bundlerOptions } : {}),
      ...(opts.workerOptions?.dataConverter ? { dataConverter: opts.workerOptions.dataConverter } : {}),
      ...(opts.workerOptions?.plugins ? { plugins: opts.workerOptions.plugins } : {}),
      workflowModules: [
        ...(opts.workerOptions?.interceptors?.workflowModules ?? []),
        ...WORKFLOW_INTERCEPTOR_MODULES,
        ...(tracing ? TRACING_WORKFLOW_INTERCEPTOR_MODULES : []),
      ],
      logger: Runtime.instance().logger,
    }));
  const sinks: InjectedSinks<TflowSinks> = {
    tflow: {
      runStarted: {
        fn: (_info, event) => {
          logEvent(TFLOW_EVENTS.runStarted, runEventFields(event));
          opts.onRunStarted?.(event);
        },
        callDuringReplay: false,
      },
      runFinished: {
        fn: (_info, event) => {
          logRunFinished(event);
          opts.onRunFinished?.(event);
        },
        callDuringReplay: false,
      },
    },
    ...(traced ? traced.parts.workflowSpanSink(traced.tracing) : {}),
  };
  const limits = rateLimitsOf(opts.pipelines ?? [], opts.steps);
  const shared = {
    ...opts.workerOptions,
    ...(opts.codec
      ? { dataConverter: codecDataConverter(opts.codec, opts.workerOptions?.dataConverter) }
      : {}),
    connection: opts.connection,
    namespace: opts.namespace ?? 'default',
    // Ours last, i.e. innermost: it reads the step's own error and attempt before anything else. The
    // attempt's span (tracing) is outermost: it covers the user's interceptors too.
    activityInterceptors: [
      ...(traced
        ? [traced.parts.otelActivityInterceptor(traced.tracing), traced.parts.stepAttemptAttributes]
        : []),
      ...(opts.workerOptions?.interceptors?.activity ?? []),
      stepRetryInterceptor(opts.onStepRetried),
      occurrenceInterceptor,
      attemptInterceptor,
    ],
  };
  const { activityInterceptors, bundlerOptions: _bundled, ...base } = shared;
  const { workflowModules: _inBundle, ...workflowInterceptors } = opts.workerOptions?.interceptors ?? {};
  const main = await Worker.create({
    ...base,
    taskQueue: opts.taskQueue,
    activities: {
      ...opts.steps,
      ...schedulerActivities,
      ...slotActivitiesOn(semaphoreQueue),
      ...createAlertActivities({
        handlers: opts.steps,
        ...(opts.onAlertDelivery ? { onDelivery: opts.onAlertDelivery } : {}),
        logAlertSent,
      }),
    },
    interceptors: { ...workflowInterceptors, activity: activityInterceptors },
    // Bundled above or prebuilt: the bundle carries the workflow interceptor modules.
    workflowBundle,
    sinks,
  });
  const companions = await createRateLimitedWorkers(
    { ...base, taskQueue: opts.taskQueue, interceptors: { activity: activityInterceptors } },
    opts.steps,
    limits,
  );
  // Every worker serves its semaphore queue, unless it is that queue's own.
  const semaphores =
    opts.taskQueue === semaphoreQueue
      ? []
      : [
          shareSemaphoreWorker({
            ...base,
            taskQueue: semaphoreQueue,
            interceptors: { ...workflowInterceptors, activity: activityInterceptors },
            workflowBundle,
            sinks,
          }),
        ];
  const worker = withCompanions(main, [...companions, ...semaphores]);
  if (tracing) flushWhenStopped(worker, () => tracing.forceFlush());
  return worker;
}

/** The worker's semaphore queue: its own, or the default for a worker with or without a codec. */
function semaphoreQueueOf(opts: CreateWorkerOptions): string {
  const queue = opts.semaphoreTaskQueue;
  if (queue === undefined) return opts.codec ? CODEC_SEMAPHORE_TASK_QUEUE : SEMAPHORE_TASK_QUEUE;
  if (typeof queue !== 'string' || queue.trim() === '') {
    throw new InvalidArgumentError(
      'semaphoreTaskQueue',
      `semaphoreTaskQueue must be a task queue name (a non-empty string), got ${describeValue(queue)}`,
    );
  }
  return queue;
}

/** Sends the spans still buffered once `run()` ends (the last runs' spans are not lost at shutdown). */
function flushWhenStopped(worker: Worker, flush: () => Promise<void>): void {
  const run = worker.run.bind(worker);
  worker.run = async () => {
    try {
      await run();
    } finally {
      await flush().catch((err: unknown) => {
        Runtime.instance().logger.warn(`createWorker: could not send the last spans: ${String(err)}`);
      });
    }
  };
}

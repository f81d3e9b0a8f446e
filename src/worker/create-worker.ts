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
import type { RunFinishedEvent, RunStartedEvent, TflowSinks } from '../workflows/sinks';
import { schedulerActivities } from '../activities/scheduler-activities';
import { createAlertActivities, type AlertDelivery } from '../activities/alerts/alert-activities';
import { attemptInterceptor } from './attempt-interceptor';
import { occurrenceInterceptor } from './step-idempotency';
import { logAlertSent, logEvent, logRunFinished, runEventFields, TFLOW_EVENTS } from './run-events';
import { stepRetryInterceptor, type StepRetriedEvent } from './step-retries';
import type { PipelineLike } from '../pipeline/builder';
import { createRateLimitedWorkers, rateLimitsOf, withCompanions } from './rate-limited-workers';
import {
  lacksInterceptorModules,
  lacksTracingModules,
  prebuiltWorkflowBundle,
  PRELOADED_WORKFLOW_MODULES,
  TRACING_WORKFLOW_INTERCEPTOR_MODULES,
  WORKFLOW_INTERCEPTOR_MODULES,
  WORKFLOWS_PATH,
  withNativeSyntax,
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
  // The shipped bundles hold only our interceptor modules: with the user's own, bundle at start.
  const workflowBundle =
    opts.workflowBundle ??
    (opts.workerOptions?.interceptors?.workflowModules?.length
      ? undefined
      : prebuiltWorkflowBundle(tracing !== undefined));
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
  const { activityInterceptors, ...base } = shared;
  const main = await Worker.create({
    ...base,
    taskQueue: opts.taskQueue,
    activities: {
      ...opts.steps,
      ...schedulerActivities,
      ...createAlertActivities({
        handlers: opts.steps,
        ...(opts.onAlertDelivery ? { onDelivery: opts.onAlertDelivery } : {}),
        logAlertSent,
      }),
    },
    interceptors: {
      ...opts.workerOptions?.interceptors,
      activity: activityInterceptors,
      // A prebuilt bundle carries its own (the SDK warns when both are given).
      ...(workflowBundle
        ? {}
        : {
            workflowModules: [
              ...(opts.workerOptions?.interceptors?.workflowModules ?? []),
              ...WORKFLOW_INTERCEPTOR_MODULES,
              ...(tracing ? TRACING_WORKFLOW_INTERCEPTOR_MODULES : []),
            ],
          }),
    },
    ...(workflowBundle
      ? { workflowBundle }
      : {
          workflowsPath: WORKFLOWS_PATH,
          // Bundled at start (from source, or with the user's own interceptor modules): ours are still
          // evaluated once per worker thread rather than once per run, as in the shipped bundle.
          bundlerOptions: {
            // ES2022 as the shipped bundle (nativeSyntax), then the user's own hook.
            ...withNativeSyntax(opts.workerOptions?.bundlerOptions),
            preloadModules: [
              ...(opts.workerOptions?.bundlerOptions?.preloadModules ?? []),
              ...PRELOADED_WORKFLOW_MODULES,
            ],
          },
        }),
    sinks,
  });
  const companions = await createRateLimitedWorkers(
    { ...base, taskQueue: opts.taskQueue, interceptors: { activity: activityInterceptors } },
    opts.steps,
    limits,
  );
  const worker = withCompanions(main, companions);
  if (tracing) flushWhenStopped(worker, () => tracing.forceFlush());
  return worker;
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

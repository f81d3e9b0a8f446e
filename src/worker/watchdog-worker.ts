import type { PayloadCodec } from '@temporalio/common';
import { Client } from '@temporalio/client';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { ensureAlertEvaluator } from '../client/jobs/alert-evaluator';
import {
  createAlertActivities,
  type AlertCheck,
  type AlertDelivery,
  type AlertEvaluation,
  type AlertHandler,
} from '../activities/alerts/alert-activities';
import { codecDataConverter } from '../codec/data-converter';
import { logAlertSent } from './run-events';
import { DEFAULT_WATCHDOG_TASK_QUEUE } from '../workflows/alerts/watchdog-defs';
import { ALERT_WORKFLOWS_PATH, prebuiltAlertWorkflowBundle, withNativeSyntax } from './workflow-bundle';

export interface CreateWatchdogWorkerOptions {
  connection: NativeConnection;
  /** @default 'default' */
  namespace?: string;
  /** The schedulers' `watchdogTaskQueue`: the alert queue this worker serves. @default 'tflow-watchdog' */
  taskQueue?: string;
  /**
   * Activities that the jobs' `onSilent` and `onMissed` may name (the built-in webhook needs none): the
   * evaluator's alerts are delivered here, not on the jobs' workers, so that they fire when no worker of the
   * job runs.
   */
  alerts?: Record<string, AlertHandler>;
  /**
   * A pre-built workflow bundle holding the alert workflows (`bundleWorkflowCode` of `WORKFLOWS_PATH` or of
   * `ALERT_WORKFLOWS_PATH`), e.g. in tests. Default: dist/alert-workflow-bundle.js, the alert workflows only.
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** The codec of the jobs' workers, when payloads are encrypted. */
  codec?: PayloadCodec;
  /** Called after each attempt at delivering an alert (e.g. {@link AlertMetrics.recordDelivery}). */
  onAlertDelivery?: (delivery: AlertDelivery) => void;
  /**
   * Called when the alert evaluator's read of a job fails (it is retried until it succeeds) and at the first read
   * that succeeds again (e.g. {@link AlertMetrics.recordEvaluation}).
   */
  onAlertEvaluation?: (evaluation: AlertEvaluation) => void;
  /**
   * Called after each due check of a job by the evaluator (its dead-man deadline, its counters after a
   * nominal time), with how late after it was due it ran (e.g. {@link AlertMetrics.recordCheck}).
   */
  onAlertCheck?: (check: AlertCheck) => void;
  /**
   * The shared evaluator's pace, for tests and benches: `waveMs` between two waves (default 5 s), the
   * evaluation's `heartbeatTimeoutMs` (default 30 s) when this worker starts the evaluator.
   */
  evaluator?: { waveMs?: number; runForMs?: number; heartbeatTimeoutMs?: number };
  /** Any other Temporal worker option. */
  workerOptions?: Omit<
    WorkerOptions,
    'connection' | 'taskQueue' | 'namespace' | 'activities' | 'workflowBundle' | 'workflowsPath'
  >;
}

/**
 * The deadlock timeout of a workflow task run on the main thread: the SDK's own for its threads (5 s), which
 * `debugMode` lifts unless the option is given. Not in the SDK's public `WorkerOptions` type, though read
 * from it (worker-options.js): should a later SDK stop reading it, the alert worker's own short workflows
 * would run without the limit, nothing else.
 */
const IN_THREAD_DEADLOCK_TIMEOUT = { isolateExecutionTimeout: '5s' } as Partial<WorkerOptions>;

/** Watchdogs kept in the worker's cache unless `workerOptions.maxCachedWorkflows` says otherwise. */
export const WATCHDOG_CACHED_WORKFLOWS = 100;

/**
 * Creates the alert worker (the dead-man switch `expectSuccessWithin`, and the server's missed/skipped
 * counts for `onMissed`): it polls the alert task queue, starts that queue's shared alert evaluator
 * (evaluator-workflow.ts) unless it runs, and delivers its alerts, whatever the jobs' own task queues. Run
 * at least one somewhere (any number may run: Temporal hands
 * each task to one), apart from the jobs' workers if a dead man should be seen when they are all down.
 */
export async function createWatchdogWorker(opts: CreateWatchdogWorkerOptions): Promise<Worker> {
  const wftSlots = opts.workerOptions?.maxConcurrentWorkflowTaskExecutions;
  const namespace = opts.namespace ?? 'default';
  const taskQueue = opts.taskQueue ?? DEFAULT_WATCHDOG_TASK_QUEUE;
  const worker = await Worker.create({
    // Its workflows are few (the evaluator, short deliveries, per-job watchdogs of the release before until
    // retired), so caching many only holds memory (the SDK's default, sized by the machine's RAM, kept
    // 10,000 idle watchdogs of the release before at 1.3 GB): a task replays its short
    // history instead. Never below the task slots, which the SDK requires.
    maxCachedWorkflows: Math.max(WATCHDOG_CACHED_WORKFLOWS, wftSlots ?? 0),
    // Its workflows run on the process's main thread (the SDK's `debugMode`: the same reusable V8 context
    // its worker threads and its replayer run them in, with the usual 5 s deadlock timeout set here), not in
    // a worker thread: a thread is a V8 isolate of its own that loads the SDK's protobuf code again, about
    // 20 MB of RSS (an idle alert worker with jemalloc: 111-114 MB against 129-134), for a few short
    // workflow tasks. `workerOptions: { debugMode: false }` gives them one thread again.
    debugMode: true,
    ...IN_THREAD_DEADLOCK_TIMEOUT,
    workflowThreadPoolSize: 1,
    ...opts.workerOptions,
    ...(opts.codec
      ? { dataConverter: codecDataConverter(opts.codec, opts.workerOptions?.dataConverter) }
      : {}),
    connection: opts.connection,
    namespace,
    taskQueue,
    activities: createAlertActivities({
      handlers: opts.alerts ?? {},
      ...(opts.onAlertDelivery ? { onDelivery: opts.onAlertDelivery } : {}),
      ...(opts.onAlertEvaluation ? { onEvaluation: opts.onAlertEvaluation } : {}),
      ...(opts.onAlertCheck ? { onCheck: opts.onAlertCheck } : {}),
      ...(opts.evaluator
        ? { evaluator: { waveMs: opts.evaluator.waveMs, runForMs: opts.evaluator.runForMs } }
        : {}),
      logAlertSent,
    }),
    ...workflowCode(opts.workflowBundle ?? prebuiltAlertWorkflowBundle(), opts.workerOptions?.bundlerOptions),
  });
  // The queue's shared evaluator runs wherever a worker of the queue does: started unless it runs.
  const client = new Client({
    connection: opts.connection,
    namespace,
    ...(opts.codec ? { dataConverter: codecDataConverter(opts.codec) } : {}),
  });
  const heartbeatTimeoutMs = opts.evaluator?.heartbeatTimeoutMs;
  await ensureAlertEvaluator(
    client,
    taskQueue,
    heartbeatTimeoutMs !== undefined ? { heartbeatTimeoutMs } : {},
  );
  return worker;
}

/**
 * The bundle given or shipped in dist/; from source, the workflows to bundle at start, with the user's
 * `bundlerOptions` kept (their webpack hook runs after {@link withNativeSyntax}'s).
 */
function workflowCode(
  bundle: WorkerOptions['workflowBundle'],
  bundlerOptions: WorkerOptions['bundlerOptions'],
) {
  return bundle
    ? { workflowBundle: bundle }
    : { workflowsPath: ALERT_WORKFLOWS_PATH, bundlerOptions: withNativeSyntax(bundlerOptions) };
}

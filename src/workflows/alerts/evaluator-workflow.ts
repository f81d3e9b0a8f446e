import {
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  alertCountsChangedQuery,
  alertCountsChangedSignal,
  type AlertEvaluatorActivities,
  type AlertEvaluatorInput,
} from './evaluator-defs';

/** The evaluation activity heartbeats each wave; a worker gone is noticed after this. */
const HEARTBEAT_TIMEOUT_MS = 30_000;
/** A `countsChanged` is kept this long (the activity reads it within a wave of 5 s). */
const COUNTS_CHANGED_KEEP_MS = 10 * 60_000;
/** Activity runs (about an hour each) before continue-as-new. */
const RUNS_PER_HISTORY = 24;

/**
 * Since this patch an evaluation is retried at most {@link EVALUATION_RETRY_MAX_MS} after an attempt ends
 * (it was up to a minute): see {@link evaluation}.
 */
export const EVALUATOR_RETRY_BOUNDED_PATCH = 'tflow-evaluator-retry-bounded';
/** The longest wait before an evaluation is retried (a worker that died, a worker shut down). */
export const EVALUATION_RETRY_MAX_MS = 2_000;

// Retried for as long as it fails (a worker that dies, a server away, a codec key missing): the activity
// rebuilds what it knows from the schedules, the runs' visibility and what its predecessor handed on.
// Every alert of the queue waits for the retry, so its backoff is bounded to 2 s. It was 1 s doubling to a
// minute, and the retries count every attempt ended within one activity (an hour of waves): from the
// fourth dead worker in that hour the retry waited 8 s, from the seventh a minute, on top of the heartbeat
// timeout (test/chaos/evaluator-resume.test.ts). A rebuild that fails is tried again by the attempt itself,
// backing off (evaluate-alerts.ts), as it lists every schedule of the queue.
function evaluation(heartbeatTimeoutMs: number, bounded: boolean) {
  return proxyActivities<AlertEvaluatorActivities>({
    startToCloseTimeout: '2h',
    heartbeatTimeout: heartbeatTimeoutMs,
    retry: { initialInterval: '1s', maximumInterval: bounded ? EVALUATION_RETRY_MAX_MS : '1m' },
  }).tflowEvaluateAlerts;
}

/**
 * The shared alert evaluator of one alert task queue: a durable anchor that keeps one evaluation activity
 * running (it does the work and holds the state, which is derived and can be thrown away: see
 * activities/alerts/evaluator). The workflow itself keeps only the `countsChanged` hints of the last
 * minutes. Started (idempotently) by every alert worker and by the schedulers; one per task queue.
 */
export async function tflowAlertEvaluatorWorkflow(input: AlertEvaluatorInput): Promise<void> {
  const countsChanged: Record<string, string> = { ...(input.countsChanged ?? {}) };
  setHandler(alertCountsChangedSignal, (jobId) => {
    countsChanged[jobId] = new Date(Date.now()).toISOString();
  });
  setHandler(alertCountsChangedQuery, () => countsChanged);
  const heartbeatTimeoutMs = input.heartbeatTimeoutMs ?? HEARTBEAT_TIMEOUT_MS;
  const legacy = evaluation(heartbeatTimeoutMs, false);
  const bounded = evaluation(heartbeatTimeoutMs, true);
  let carry = input.carry;
  for (let runs = 0; runs < RUNS_PER_HISTORY && !workflowInfo().continueAsNewSuggested; runs++) {
    const tflowEvaluateAlerts = patched(EVALUATOR_RETRY_BOUNDED_PATCH) ? bounded : legacy;
    ({ carry } = await tflowEvaluateAlerts({ taskQueue: input.taskQueue, ...(carry ? { carry } : {}) }));
    const old = Date.now() - COUNTS_CHANGED_KEEP_MS;
    for (const [jobId, at] of Object.entries(countsChanged))
      if (Date.parse(at) < old) delete countsChanged[jobId];
  }
  await condition(allHandlersFinished);
  await continueAsNew<typeof tflowAlertEvaluatorWorkflow>({
    taskQueue: input.taskQueue,
    countsChanged,
    ...(input.heartbeatTimeoutMs !== undefined ? { heartbeatTimeoutMs: input.heartbeatTimeoutMs } : {}),
    ...(carry ? { carry } : {}),
  });
}

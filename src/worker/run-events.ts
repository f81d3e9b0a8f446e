import { Runtime } from '@temporalio/worker';
import type { AlertSentFields } from '../activities/alert-activities';
import type { RunEventBase, RunFinishedEvent } from '../workflows/sinks';

/*
 * temporal-flow's own log lines: one per run started, run finished, run skipped, step retried and alert
 * sent, written through the SDK's process-wide logger (a JsonLinesLogger when installed), so that they land
 * beside the SDK's lines. Run events come from workflow sinks, which the worker does not call on replay:
 * a replayed run writes no line twice.
 */

/** Names of temporal-flow's log events (the `msg` and `event` of their lines). Persisted in log queries. */
export const TFLOW_EVENTS = {
  runStarted: 'run.started',
  runFinished: 'run.finished',
  runSkipped: 'run.skipped',
  stepRetried: 'step.retried',
  alertSent: 'alert.sent',
} as const;
export type TflowEvent = (typeof TFLOW_EVENTS)[keyof typeof TFLOW_EVENTS];

/** The fields every event names when it knows them; any other field is added as given. */
export interface EventFields {
  /** Job id, for scheduled runs. */
  job?: string | undefined;
  pipeline?: string | undefined;
  workflowId?: string | undefined;
  runId?: string | undefined;
  /** Step id (a map item's `<map id>[<index>]`). */
  step?: string | undefined;
  /** Nominal time of a scheduled run, ISO 8601. */
  nominalTime?: string | undefined;
  [field: string]: unknown;
}

/**
 * Writes one temporal-flow event line at level info through the SDK's logger (`Runtime.install({ logger
 * })`). Call it once per fact, outside workflow code (e.g. an activity that sent an alert, or a sink).
 *
 * ```ts
 * logEvent('alert.sent', { job: 'etl-nightly', pipeline: 'nightly-etl', kind: 'failed', channel: 'slack' });
 * ```
 */
export function logEvent(event: TflowEvent, fields: EventFields): void {
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  Runtime.instance().logger.info(event, { event, ...defined });
}

/** The common fields of a run event, under the log's names. */
export function runEventFields(e: RunEventBase): EventFields {
  return {
    job: e.jobId,
    pipeline: e.pipeline,
    workflowId: e.workflowId,
    runId: e.runId,
    nominalTime: e.nominalTime,
  };
}

/** Logs a finished run: `run.skipped` with its reason, else `run.finished` with status and duration. */
export function logRunFinished(e: RunFinishedEvent): void {
  const { pipeline: _p, jobId: _j, workflowId: _w, runId: _r, nominalTime: _n, ...rest } = e;
  logEvent(e.status === 'skipped' ? TFLOW_EVENTS.runSkipped : TFLOW_EVENTS.runFinished, {
    ...runEventFields(e),
    ...rest,
  });
}

/** Logs one attempt at delivering an alert (`alert.sent`), as the alert activities report it. */
export function logAlertSent(fields: AlertSentFields): void {
  logEvent(TFLOW_EVENTS.alertSent, { ...fields });
}

import { Context } from '@temporalio/activity';
import type { Client, ScheduleDescription } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { describeValue } from '../../errors';
import { describeJobIfAny } from '../../client/jobs/store/describe-job';
import { missingCodecError } from '../../codec/errors';
import { compileAlerts } from '../../client/jobs/store/job-alerts';
import { decodeJobRecord } from '../../client/jobs/store/job-record';
import type {
  AlertDeliveryActivities,
  AlertKind,
  CompiledAlertTarget,
  JobAlertEvent,
} from '../../workflows/alert-types';
import type { ScheduleWatch, WatchdogActivities, WatchOptions } from '../../workflows/alerts/watchdog-defs';
import type { AlertEvaluatorActivities } from '../../workflows/alerts/evaluator-defs';
import { createEvaluatorActivities, type EvaluatorOptions } from './evaluator/evaluate-alerts';
import { keywordEquals, queryLiteral } from '../../client/query-literal';
import { OUTCOME_SEARCH_ATTRIBUTE, SCHEDULED_BY_ID_ATTRIBUTE } from '../../workflows/search-attributes';

/*
 * Built-in activities of the durable alerts. Their names are persisted in histories: never rename one.
 * `tflowDeliverAlert` is made per worker (it calls the worker's own alert activities by name, and
 * reports each attempt to the worker's metrics).
 */

/** `ApplicationFailure.type` of a webhook that refused the alert for good (a 4xx other than 408 and 429). */
export const ALERT_WEBHOOK_REJECTED = 'AlertWebhookRejected';
/** `ApplicationFailure.type` of an alert naming an activity the worker does not have. */
export const ALERT_TARGET_UNKNOWN = 'AlertTargetUnknown';

/** One attempt at delivering an alert, as the worker's `onAlertDelivery` sees it. */
export interface AlertDelivery {
  kind: AlertKind;
  jobId: string;
  outcome: 'delivered' | 'failed';
  /** Attempt number, from 1. */
  attempt: number;
  error?: string;
}

/** One read of a job by its watchdog that failed, or the first that succeeded after failures. */
export interface AlertEvaluation {
  jobId: string;
  outcome: 'read' | 'failed';
  /** Attempt number of the read, from 1. */
  attempt: number;
  error?: string;
}

/**
 * One due check of a job by the alert evaluator: its dead-man deadline or its counters after a nominal
 * time (or a trigger), made `lagMs` after it was due (metrics: an evaluator falling behind).
 */
export interface AlertCheck {
  jobId: string;
  /** What was due: `deadline` (the dead-man switch), `counts` (missed and skipped times). */
  due: ('deadline' | 'counts')[];
  dueAt: Date;
  checkedAt: Date;
  /** checkedAt - dueAt, in ms (0 or more). */
  lagMs: number;
}

/** An alert activity: takes the event, its return value is ignored. */
export type AlertHandler = (event: JobAlertEvent) => unknown;

/** What {@link createAlertActivities} needs of its worker. */
export interface AlertActivitiesOptions {
  /** Activities an alert may name (`onMissed: 'page'`): the worker's steps. */
  handlers: Record<string, AlertHandler>;
  /** Called after each delivery attempt (metrics). */
  onDelivery?: (delivery: AlertDelivery) => void;
  /**
   * Called after a watchdog's read of its job failed, and after the first read that succeeds again
   * (metrics: a job whose alerts cannot be evaluated).
   */
  onEvaluation?: (evaluation: AlertEvaluation) => void;
  /** Called after each due check of a job by the evaluator (metrics: how late checks run). */
  onCheck?: (check: AlertCheck) => void;
  /** Writes the `alert.sent` event line of each attempt (the worker's run-events log). */
  logAlertSent: (fields: AlertSentFields) => void;
  /** The shared evaluator's pace (tests and benches). */
  evaluator?: Pick<EvaluatorOptions, 'waveMs' | 'runForMs'>;
}

/** The fields of one attempt's `alert.sent` event line. */
export interface AlertSentFields {
  job: string;
  workflowId: string | undefined;
  runId: string | undefined;
  nominalTime: string | undefined;
  kind: AlertKind;
  /** The webhook's host, or the alert activity's name. */
  target: string;
  outcome: AlertDelivery['outcome'];
  attempt: number;
  error: string | undefined;
}

/** `ApplicationFailure.type` of a webhook that could not be reached (network error, timeout): retried. */
export const ALERT_WEBHOOK_UNREACHABLE = 'AlertWebhookUnreachable';

/** The host a webhook is named by in logs and failures: its URL's path, query and user info can be secrets. */
function webhookHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'with an invalid URL';
  }
}

function hrefOf(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

/**
 * A fetch error as a retryable failure that names the webhook by its host: failure messages are never
 * encrypted, and undici's can quote the whole URL. Its causes' messages are kept (redacted), not the
 * errors themselves.
 */
function unreachable(url: string, err: unknown): ApplicationFailure {
  const host = webhookHost(url);
  const messages: string[] = [];
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    messages.push(e.message);
  }
  let text = messages.length > 0 ? messages.join(': ') : describeValue(err);
  for (const form of new Set([url, hrefOf(url)])) text = text.split(form).join(host);
  return ApplicationFailure.create({
    type: ALERT_WEBHOOK_UNREACHABLE,
    message: `webhook ${host} could not be reached: ${text}`,
  });
}

/** POSTs the event as JSON; a 2xx is delivered, 408/429/5xx and network errors are retried, other 4xx are not. */
async function postWebhook(
  webhook: Extract<CompiledAlertTarget, { webhook: unknown }>['webhook'],
  event: JobAlertEvent,
): Promise<void> {
  let response: Response;
  try {
    response = await fetch(webhook.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...webhook.headers },
      body: JSON.stringify(event),
      signal: AbortSignal.timeout(webhook.timeoutMs),
    });
  } catch (err) {
    throw unreachable(webhook.url, err);
  }
  await response.body?.cancel();
  if (response.ok) return;
  const message = `webhook ${webhookHost(webhook.url)} answered ${response.status} ${response.statusText}`;
  const retried = response.status >= 500 || response.status === 408 || response.status === 429;
  throw ApplicationFailure.create({ type: ALERT_WEBHOOK_REJECTED, message, nonRetryable: !retried });
}

/**
 * The latest close time among the first page of runs of the job that completed after `after` and did not
 * skip themselves (visibility has no ORDER BY on SQLite: any later one is enough to move the clock, and a
 * job that completes runs this often is read again before it could go silent).
 */
async function completedRunAfter(client: Client, jobId: string, after: string): Promise<string | undefined> {
  const by = keywordEquals('TemporalScheduledById', jobId);
  if (!by.clause) return undefined;
  const query = `${by.clause} AND ExecutionStatus = 'Completed' AND CloseTime > ${queryLiteral(after)}`;
  let latest: Date | undefined;
  let seen = 0;
  for await (const wf of client.workflow.list({ query, pageSize: 100 })) {
    if (++seen > 100) break;
    const byId = wf.typedSearchAttributes.get(SCHEDULED_BY_ID_ATTRIBUTE);
    if (!by.exact && byId !== jobId) continue;
    if (wf.typedSearchAttributes.get(OUTCOME_SEARCH_ATTRIBUTE) !== undefined) continue;
    if (wf.closeTime && (!latest || wf.closeTime > latest)) latest = wf.closeTime;
  }
  return latest && latest.getTime() > Date.parse(after) ? latest.toISOString() : undefined;
}

/** The alert activities of one worker. */
export function createAlertActivities(
  opts: AlertActivitiesOptions,
): AlertDeliveryActivities & WatchdogActivities & AlertEvaluatorActivities {
  return {
    ...createEvaluatorActivities({
      ...(opts.onEvaluation ? { onEvaluation: opts.onEvaluation } : {}),
      ...(opts.onCheck ? { onCheck: opts.onCheck } : {}),
      ...(opts.evaluator ?? {}),
    }),
    /** Delivers one alert to its target: a POST to the webhook, or the named activity called in place. */
    async tflowDeliverAlert(target: CompiledAlertTarget, event: JobAlertEvent): Promise<void> {
      const attempt = Context.current().info.attempt;
      const report = (outcome: AlertDelivery['outcome'], error?: unknown) => {
        const delivery: AlertDelivery = {
          kind: event.kind,
          jobId: event.jobId,
          outcome,
          attempt,
          ...(error !== undefined
            ? { error: error instanceof Error ? error.message : describeValue(error) }
            : {}),
        };
        opts.logAlertSent({
          job: event.jobId,
          workflowId: event.workflowId,
          runId: event.runId,
          nominalTime: event.nominalTimes?.[0],
          kind: event.kind,
          target: 'webhook' in target ? webhookHost(target.webhook.url) : target.activity,
          outcome,
          attempt,
          error: delivery.error,
        });
        opts.onDelivery?.(delivery);
      };
      try {
        if ('webhook' in target) await postWebhook(target.webhook, event);
        else {
          const handler = opts.handlers[target.activity];
          if (!handler) {
            throw ApplicationFailure.create({
              type: ALERT_TARGET_UNKNOWN,
              message: `alert activity "${target.activity}" is not registered on this worker (task queue ${Context.current().info.taskQueue}): add it to the worker's steps (or the watchdog worker's alerts)`,
              nonRetryable: true,
            });
          }
          await handler(event);
        }
      } catch (err) {
        report('failed', err);
        throw err;
      }
      report('delivered');
    },

    /**
     * The job's schedule as the watchdog needs it: paused, deleted or active, its missed/skipped counts, its
     * next nominal time (none while paused), and what its alerts ask of the watchdog (read from the job's
     * record, as the last write left it).
     */
    async tflowWatchSchedule(jobId: string, watchOpts: WatchOptions = {}): Promise<ScheduleWatch> {
      const { attempt } = Context.current().info;
      let d: ScheduleDescription | undefined;
      let lastCompletedAt: string | undefined;
      try {
        d = await describeJobIfAny(Context.current().client, jobId);
        if (d && watchOpts.completedAfter) {
          lastCompletedAt = await completedRunAfter(
            Context.current().client,
            jobId,
            watchOpts.completedAfter,
          );
        }
      } catch (err) {
        // Retried by the watchdog for as long as it fails: said on every attempt, never swallowed.
        const error = err instanceof Error ? err.message : describeValue(err);
        Context.current().log.error(`the alerts of job "${jobId}" cannot be evaluated: ${error}`, {
          jobId,
          attempt,
        });
        opts.onEvaluation?.({ jobId, outcome: 'failed', attempt, error });
        // The SDK's "Unknown encoding" says nothing of what to do; ours names the codec.
        throw missingCodecError(err) ?? err;
      }
      if (attempt > 1) opts.onEvaluation?.({ jobId, outcome: 'read', attempt });
      if (!d) return { state: 'deleted' };
      const record = decodeJobRecord(undefined, d.action.memo);
      if (record?.alertsLost) {
        // An outside edit dropped targets the watchdog would raise: said at each read, until set again.
        const error = `job "${jobId}" lost its alert targets ${record.alertsLost.join(', ')} to an edit made outside temporal-flow: set them again (modifyJob, or apply its file)`;
        Context.current().log.error(error, { jobId });
        opts.onEvaluation?.({ jobId, outcome: 'failed', attempt, error });
      }
      const alerts = record?.alerts;
      const compiled = alerts ? compileAlerts(alerts).watchdog : undefined;
      const config =
        compiled && record?.deadManSince && compiled.onSilent
          ? { ...compiled, deadManSince: record.deadManSince }
          : compiled;
      const next = d.state.paused ? undefined : d.info.nextActionTimes[0];
      return {
        ...(config ? { config } : {}),
        ...(next ? { nextActionAt: next.toISOString() } : {}),
        ...(lastCompletedAt ? { lastCompletedAt } : {}),
        state: d.state.paused ? 'paused' : 'active',
        counts: {
          missedCatchupWindow: d.info.numActionsMissedCatchupWindow,
          overlapSkipped: d.info.numActionsSkippedOverlap,
        },
      };
    },
  };
}

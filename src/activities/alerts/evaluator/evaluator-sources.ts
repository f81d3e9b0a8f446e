import { WorkflowNotFoundError, type Client, type ScheduleDescription } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { describeJobIfAny } from '../../../client/jobs/store/describe-job';
import { decodeAlertsAttribute } from '../../../client/jobs/store/job-alerts-attribute';
import { compileAlerts } from '../../../client/jobs/store/job-alerts';
import { decodeJobRecord } from '../../../client/jobs/store/job-record';
import { listSchedulesReadable, readingClient } from '../../../client/schedule-listing';
import { keywordEquals, queryLiteral } from '../../../client/query-literal';
import type { WatchdogConfig } from '../../../workflows/alerts/watchdog-defs';
import {
  DEFAULT_WATCHDOG_TASK_QUEUE,
  JOB_WATCHDOG_WORKFLOW_TYPE,
} from '../../../workflows/alerts/watchdog-defs';
import {
  ALERTS_AT_SEARCH_ATTRIBUTE,
  ALERTS_SEARCH_ATTRIBUTE,
  JOB_SEARCH_ATTRIBUTE,
  OUTCOME_SEARCH_ATTRIBUTE,
  SCHEDULED_BY_ID_ATTRIBUTE,
  SCHEDULED_START_TIME_ATTRIBUTE,
} from '../../../workflows/search-attributes';

/*
 * The evaluator's reads, each one call (or one paginated listing) to Temporal: which schedules changed
 * their alerts, one job as its schedule holds it, which runs completed, and the per-job watchdogs of the
 * release before, which the evaluator retires.
 */

/** A job's schedule as the evaluator needs it; `config` absent when its alerts need no evaluation. */
export interface JobReading {
  jobId: string;
  taskQueue: string | undefined;
  config?: WatchdogConfig;
  createdAt: string;
  paused: boolean;
  nextActionAt?: number;
  counts: { missedCatchupWindow: number; overlapSkipped: number };
  /** Targets an outside edit dropped (the job's alerts cannot all be evaluated). */
  alertsLost?: string[];
  /** The job's alert task queue, when its record names one (else the default). */
  alertQueue?: string;
  /** Its `TflowAlertsAt` as read (epoch ms). */
  alertsAt?: number;
  /** The schedule's coming action times (epoch ms, jitter included, ascending), as the server lists them. */
  expectedTimes: number[];
  /** Its spec's jitter (ms; 0 when none): a run's nominal time is up to this much before its action time. */
  jitterMs: number;
  /** Its catch-up window (ms): after an action time plus this, the server no longer starts it. */
  catchupMs: number;
  /** Starts held in the schedule's buffer (an overlap policy that buffers). */
  bufferSize: number;
  /**
   * Its conflict token: the server moves it on every update, pause and unpause, and once per action taken
   * by a schedule with limited actions (see `remainingActions`).
   */
  editToken?: bigint;
  /** Actions left, when its actions are limited. */
  remainingActions?: number;
  /** The workflow id its action starts runs under (the server appends each run's nominal time). */
  runWorkflowId?: string;
}

/** A completed run of a job. */
export interface CompletedRun {
  /** Close time (ISO 8601). */
  at: string;
  workflowId: string;
  runId: string;
}

/**
 * Whether a listed job may need evaluating by `taskQueue`, from its `TflowAlerts` attribute alone (no
 * describe): false when the attribute says it has no switch and no onMissed, or names another queue; true
 * when it says otherwise, when it cannot be decoded here (the describe then says why), or is absent (a job
 * written before the attribute: its alerts are in the action's memo).
 */
async function mayNeed(
  client: Client,
  jobId: string,
  attrs: TypedSearchAttributes | undefined,
  taskQueue: string,
): Promise<boolean> {
  // The listed record names the job's alert queue in clear (absent: the default): another queue's job is
  // not this evaluator's, even when its alerts are encrypted under a key this worker lacks.
  const listed = decodeJobRecord(attrs);
  if (listed && (listed.alertQueue ?? DEFAULT_WATCHDOG_TASK_QUEUE) !== taskQueue) return false;
  const text = attrs?.get(ALERTS_SEARCH_ATTRIBUTE);
  if (typeof text !== 'string' || text === '') return true;
  let attribute;
  try {
    attribute = await decodeAlertsAttribute(client.options.loadedDataConverter, jobId, text);
  } catch {
    return true;
  }
  const alerts = attribute?.alerts;
  if (!attribute || !alerts) return attribute === undefined;
  const evaluated =
    alerts.onMissed !== undefined ||
    (alerts.onSilent !== undefined && alerts.expectSuccessWithin !== undefined);
  return evaluated && (attribute.queue ?? DEFAULT_WATCHDOG_TASK_QUEUE) === taskQueue;
}

/**
 * The ids of our jobs (schedules with a job record or alerts attribute) to read: those that may need
 * evaluating by `taskQueue` (see mayNeed), and those `known` holds whose `TflowAlertsAt` changed since they
 * were read (a job whose alerts were removed or moved must be read again to be dropped); `since`: only the
 * schedules whose alerts were written after it. `listed`: every one of ours the listing showed.
 */
export async function listJobIds(
  client: Client,
  taskQueue: string,
  known: ReadonlyMap<string, object>,
  since?: Date,
  /** Called for each schedule listed (a heartbeat: a listing of thousands outlasts a heartbeat timeout). */
  alive: () => void = () => undefined,
): Promise<{ ids: string[]; listed: Set<string> }> {
  const ids: string[] = [];
  const listed = new Set<string>();
  const listing = since
    ? readingClient(client).schedule.list({
        query: `${ALERTS_AT_SEARCH_ATTRIBUTE.name} > ${queryLiteral(since.toISOString())}`,
      })
    : listSchedulesReadable(client);
  for await (const s of listing) {
    alive();
    const text = s.typedSearchAttributes?.get(ALERTS_SEARCH_ATTRIBUTE);
    const ours = text !== undefined || s.typedSearchAttributes?.get(JOB_SEARCH_ATTRIBUTE) !== undefined;
    if (!ours) continue;
    listed.add(s.scheduleId);
    const seen = known.get(s.scheduleId) as { alertsAt?: number } | undefined;
    if (seen !== undefined) {
      // Listed again (the visibility lag's overlap, a full listing): read only when written since it was read.
      const at = s.typedSearchAttributes?.get(ALERTS_AT_SEARCH_ATTRIBUTE)?.getTime();
      if (at === undefined || at !== seen.alertsAt) ids.push(s.scheduleId);
    } else if (await mayNeed(client, s.scheduleId, s.typedSearchAttributes, taskQueue)) {
      ids.push(s.scheduleId);
    }
  }
  return { ids, listed };
}

/**
 * One copy of each alert target and alert queue name the evaluator holds. Jobs written with the
 * scheduler-wide targets would otherwise each keep their own decoded copy: at 10,000 such jobs, 20,000
 * copies of one webhook (about 1 MB of URL strings alone, and the objects around them). Nothing mutates
 * what is shared. Bounded: forgotten past {@link SHARED_MAX} distinct values (each job then keeps its own).
 */
const shared = new Map<string, unknown>();
const SHARED_MAX = 1_000;

function sharedCopy<T>(value: T): T {
  const key = typeof value === 'string' ? `s${value}` : `j${JSON.stringify(value)}`;
  const held = shared.get(key);
  if (held !== undefined) return held as T;
  if (shared.size >= SHARED_MAX) shared.clear();
  shared.set(key, value);
  return value;
}

/** `config` with its targets shared (see {@link sharedCopy}). */
function withSharedTargets(config: WatchdogConfig): WatchdogConfig {
  return {
    ...config,
    ...(config.onSilent ? { onSilent: sharedCopy(config.onSilent) } : {}),
    ...(config.onMissed ? { onMissed: sharedCopy(config.onMissed) } : {}),
  };
}

/** What of a description the evaluator keeps. */
export function readingOf(jobId: string, d: ScheduleDescription): JobReading {
  const record = decodeJobRecord(undefined, d.action.memo);
  const watchdog = record?.alerts ? compileAlerts(record.alerts).watchdog : undefined;
  const compiled = watchdog && withSharedTargets(watchdog);
  const config: WatchdogConfig | undefined =
    compiled && record?.deadManSince && compiled.onSilent
      ? { ...compiled, deadManSince: record.deadManSince }
      : compiled;
  const next = d.state.paused ? undefined : d.info.nextActionTimes[0];
  const alertsAt = d.typedSearchAttributes.get(ALERTS_AT_SEARCH_ATTRIBUTE)?.getTime();
  const token = tokenOf(d.raw.conflictToken);
  return {
    jobId,
    taskQueue: d.action.type === 'startWorkflow' ? d.action.taskQueue : undefined,
    ...(config ? { config } : {}),
    createdAt: d.info.createdAt.toISOString(),
    paused: d.state.paused,
    ...(next ? { nextActionAt: next.getTime() } : {}),
    counts: {
      missedCatchupWindow: d.info.numActionsMissedCatchupWindow,
      overlapSkipped: d.info.numActionsSkippedOverlap,
    },
    ...(record?.alertsLost && record.alertsLost.length > 0 ? { alertsLost: record.alertsLost } : {}),
    ...(record?.alertQueue ? { alertQueue: sharedCopy(record.alertQueue) } : {}),
    ...(alertsAt !== undefined ? { alertsAt } : {}),
    expectedTimes: d.info.nextActionTimes.map((t) => t.getTime()),
    ...(d.action.type === 'startWorkflow' ? { runWorkflowId: d.action.workflowId } : {}),
    jitterMs: d.spec.jitter ?? 0,
    catchupMs: d.policies.catchupWindow,
    bufferSize: Number(d.raw.info?.bufferSize ?? 0),
    ...(token !== undefined ? { editToken: token } : {}),
    ...(d.state.remainingActions !== undefined ? { remainingActions: d.state.remainingActions } : {}),
  };
}

/** The schedule's conflict token as a number (the server writes it as 8 bytes, big-endian), if it is one. */
function tokenOf(bytes: Uint8Array | null | undefined): bigint | undefined {
  if (!bytes || bytes.length !== 8) return undefined;
  return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0);
}

/** The job as its schedule holds it now, or undefined when the schedule is gone. */
export async function readJob(client: Client, jobId: string): Promise<JobReading | undefined> {
  const d = await describeJobIfAny(client, jobId);
  return d && readingOf(jobId, d);
}

const COMPLETED_RUNS = `ExecutionStatus = 'Completed' AND ${SCHEDULED_BY_ID_ATTRIBUTE.name} IS NOT NULL`;

/**
 * The latest close time, by job, of the scheduled runs that completed (not skipped) after `after`: one
 * paginated visibility query for every job of the namespace.
 */
export async function completedRunsAfter(client: Client, after: string): Promise<Map<string, CompletedRun>> {
  const latest = new Map<string, CompletedRun>();
  const query = `${COMPLETED_RUNS} AND CloseTime > ${queryLiteral(after)}`;
  for await (const wf of readingClient(client).workflow.list({ query, pageSize: 1000 })) {
    const jobId = wf.typedSearchAttributes.get(SCHEDULED_BY_ID_ATTRIBUTE);
    if (!jobId || !wf.closeTime) continue;
    // A run that skipped itself (misfire, max-instances) completed without running its steps.
    if (wf.typedSearchAttributes.get(OUTCOME_SEARCH_ATTRIBUTE) !== undefined) continue;
    const at = wf.closeTime.toISOString();
    const seen = latest.get(jobId);
    if (!seen || at > seen.at) latest.set(jobId, { at, workflowId: wf.workflowId, runId: wf.runId });
  }
  return latest;
}

/** The close time of the job's latest completed (not skipped) run, as visibility lists it; undefined when none. */
export async function latestCompletedRun(client: Client, jobId: string): Promise<CompletedRun | undefined> {
  const by = keywordEquals(SCHEDULED_BY_ID_ATTRIBUTE.name, jobId);
  const query = by.clause ? `${COMPLETED_RUNS} AND ${by.clause}` : COMPLETED_RUNS;
  let latest: CompletedRun | undefined;
  let seen = 0;
  // Listed newest first on every visibility store; the first page is read to be safe.
  for await (const wf of readingClient(client).workflow.list({ query, pageSize: 100 })) {
    if (++seen > (by.exact ? 100 : 1000)) break;
    if (wf.typedSearchAttributes.get(SCHEDULED_BY_ID_ATTRIBUTE) !== jobId || !wf.closeTime) continue;
    if (wf.typedSearchAttributes.get(OUTCOME_SEARCH_ATTRIBUTE) !== undefined) continue;
    const at = wf.closeTime.toISOString();
    if (!latest || at > latest.at) latest = { at, workflowId: wf.workflowId, runId: wf.runId };
  }
  return latest;
}

const STARTED_RUNS = `${SCHEDULED_BY_ID_ATTRIBUTE.name} IS NOT NULL`;

/**
 * The nominal times (epoch ms, whole seconds: the server truncates them) of the runs the schedules started
 * after `after` (their start time), by job: one paginated visibility query for the whole namespace. Runs a
 * trigger or a backfill started are in it too (their nominal time is when they were asked for).
 */
export async function startedRunsAfter(client: Client, after: string): Promise<Map<string, number[]>> {
  const byJob = new Map<string, number[]>();
  const query = `${STARTED_RUNS} AND StartTime > ${queryLiteral(after)}`;
  for await (const wf of readingClient(client).workflow.list({ query, pageSize: 1000 })) {
    const jobId = wf.typedSearchAttributes.get(SCHEDULED_BY_ID_ATTRIBUTE);
    const nominal = wf.typedSearchAttributes.get(SCHEDULED_START_TIME_ATTRIBUTE);
    if (!jobId || !nominal) continue;
    const times = byJob.get(jobId) ?? [];
    times.push(nominal.getTime());
    byJob.set(jobId, times);
  }
  return byJob;
}

/** The nominal times of one job's runs started with a nominal time at or after `from` (epoch ms). */
export async function startedRunsOf(client: Client, jobId: string, from: number): Promise<number[]> {
  const by = keywordEquals(SCHEDULED_BY_ID_ATTRIBUTE.name, jobId);
  const since = `${SCHEDULED_START_TIME_ATTRIBUTE.name} >= ${queryLiteral(new Date(from).toISOString())}`;
  const query = by.clause ? `${by.clause} AND ${since}` : `${STARTED_RUNS} AND ${since}`;
  const times: number[] = [];
  for await (const wf of readingClient(client).workflow.list({ query, pageSize: 1000 })) {
    if (wf.typedSearchAttributes.get(SCHEDULED_BY_ID_ATTRIBUTE) !== jobId) continue;
    const nominal = wf.typedSearchAttributes.get(SCHEDULED_START_TIME_ATTRIBUTE);
    if (nominal) times.push(nominal.getTime());
  }
  return times;
}

/**
 * The workflow id the server gives the run of a scheduled time (Temporal 1.32 appends the nominal time, to
 * the second, RFC 3339, to the action's workflow id): it refuses a second workflow of that id.
 */
export function scheduledRunWorkflowId(runWorkflowId: string, nominal: number): string {
  return `${runWorkflowId}-${new Date(nominal).toISOString().replace(/\.\d{3}Z$/, 'Z')}`;
}

/**
 * Whether the job's schedule started a run of nominal time `nominal` (epoch ms, whole seconds): a read of
 * the workflow the server names `<workflow id>-<nominal time, RFC 3339>`, from the history service, not
 * visibility (no lag). A workflow of that id that the schedule did not start (it has no
 * `TemporalScheduledById` of the job) is what made the server drop the start: false.
 */
export async function scheduledRunExists(
  client: Client,
  jobId: string,
  runWorkflowId: string,
  nominal: number,
): Promise<boolean> {
  const id = scheduledRunWorkflowId(runWorkflowId, nominal);
  try {
    const wf = await readingClient(client).workflow.getHandle(id).describe();
    return wf.typedSearchAttributes.get(SCHEDULED_BY_ID_ATTRIBUTE) === jobId;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** The per-job watchdogs (the release before) still running on `taskQueue`, by job id. */
export async function runningWatchdogs(client: Client, taskQueue: string): Promise<string[]> {
  const query = `WorkflowType = '${JOB_WATCHDOG_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running' AND TaskQueue = ${queryLiteral(taskQueue)}`;
  const ids: string[] = [];
  for await (const wf of readingClient(client).workflow.list({ query })) ids.push(wf.workflowId);
  return ids;
}

/** Runs `fn` over `items`, `width` at a time. */
export async function eachLimited<T>(
  items: T[],
  width: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(lanes);
}

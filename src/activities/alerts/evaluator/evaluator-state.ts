import type { AlertEvaluatorCarry } from '../../../workflows/alerts/evaluator-defs';
import type { ScheduleCounts, WatchdogConfig } from '../../../workflows/alerts/watchdog-defs';

/*
 * What the evaluator knows of one job, all of it derived: from the job's schedule (its alerts, the
 * dead-man clock's start, the counts), from visibility (the runs that completed) and from the alerts
 * already delivered (their workflow ids). Lost with the worker, rebuilt by the next evaluation activity.
 */

/** One job the evaluator watches. */
export interface WatchedJob {
  jobId: string;
  config: WatchdogConfig;
  /** When the schedule was created (the clock's start for a job written before `deadManSince`). */
  createdAt: string;
  /** The latest completed run's close time seen (ISO 8601), if any. */
  lastSuccessAt?: string;
  /** That run. */
  lastRun?: { workflowId: string; runId: string };
  /** Open silent period: the clock start its `silent` alert named (ISO 8601); absent when none is open. */
  silentSince?: string;
  /** The schedule's counters as last reported (or the baseline); absent before the first read. */
  counts?: ScheduleCounts;
  /** When they were read (ISO 8601). */
  countsAt?: string;
  /** When the counts are read next (epoch ms); Infinity without onMissed. */
  countsDueAt: number;
  /**
   * When the counts were last read after a nominal time had passed (epoch ms): the next such read is no
   * sooner than {@link COUNT_CHECK_MS} after it. A read made for another reason (the job just read, a
   * trigger sent) does not count, so a job created or read minutes before its nominal time is still read
   * 30 s after it.
   */
  nominalCheckAt?: number;
  /** The schedule's next nominal time as last read (epoch ms), if any. */
  nextActionAt?: number;
  paused: boolean;
  /** The alert queue its record names (absent: the default, or a job written before records named it). */
  alertQueue?: string;
  /** Its `TflowAlertsAt` when last read (epoch ms): a listing showing the same is not read again. */
  alertsAt?: number;
  /**
   * The action times the schedule listed at its reads that no run is known to stand for yet (epoch ms,
   * ascending; evaluator-times.ts): each becomes started, or `not-started` once past its catch-up window.
   */
  expected?: number[];
  /** From its last read: jitter, catch-up window, conflict token, actions left (evaluator-times.ts). */
  jitterMs?: number;
  catchupMs?: number;
  editToken?: bigint;
  remainingActions?: number;
  /** The workflow id its runs start under, from its last read. */
  runWorkflowId?: string;
  /** Its counts are due because a trigger or backfill was sent (a read is owed: no shortcut). */
  hinted?: boolean;
  /** No read is made for its passed times before this (the server had not gone past them at the last). */
  readAfter?: number;
  /** A read owed after a check made without one (a storm of due checks), spread over the minutes after. */
  verifyAt?: number;
}

/**
 * A job newly watched, with every field of {@link WatchedJob} present from the start (undefined until
 * known), and cleared by setting it to undefined, never by `delete`: so that the 10,000 records of a large
 * namespace share one V8 shape. Each field added in its own order, or one deleted, gave a record a shape of
 * its own or a dictionary of its properties: 1,380 bytes of heap a record against 709 (10,000 records
 * built either way, measured apart).
 */
export function newWatchedJob(
  jobId: string,
  config: WatchdogConfig,
  createdAt: string,
  paused: boolean,
): WatchedJob {
  return {
    jobId,
    config,
    createdAt,
    lastSuccessAt: undefined,
    lastRun: undefined,
    silentSince: undefined,
    counts: undefined,
    countsAt: undefined,
    countsDueAt: Infinity,
    nominalCheckAt: undefined,
    nextActionAt: undefined,
    paused,
    alertQueue: undefined,
    alertsAt: undefined,
    expected: undefined,
    jitterMs: undefined,
    catchupMs: undefined,
    editToken: undefined,
    remainingActions: undefined,
    runWorkflowId: undefined,
    hinted: undefined,
    readAfter: undefined,
    verifyAt: undefined,
  } satisfies Required<Record<keyof WatchedJob, unknown>>;
}

/** What is carried from one evaluation activity to the next. */
export type EvaluatorCarry = AlertEvaluatorCarry & {
  /**
   * How long this activity's rebuild took (ms; 0 when it took over the state its process held). Heartbeats
   * only: for operators and tests.
   */
  rebuildMs?: number;
};

/** After a nominal time, the counts are read this much later (the server counts a skip at the time itself). */
export const COUNT_GRACE_MS = 30_000;
/** The shortest spacing of two reads of one job's counts (a job that fires every second). */
export const COUNT_CHECK_MS = 5 * 60_000;
/** The longest sleep between two reads of the counts when the schedule names no next time. */
export const IDLE_COUNT_CHECK_MS = 24 * 3600_000;

/**
 * Where the job's dead-man clock runs from: its latest completed run, never before the switch was set
 * (`deadManSince`), nor before the schedule existed.
 */
export function clockStart(job: WatchedJob): string {
  const candidates = [job.lastSuccessAt, job.config.deadManSince, job.createdAt].filter(
    (t): t is string => t !== undefined,
  );
  return candidates.reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a));
}

/** The dead-man deadline (epoch ms), or Infinity when none runs (no switch, or already silent). */
export function deadlineOf(job: WatchedJob): number {
  const within = job.config.expectSuccessWithinMs;
  if (within === undefined || !job.config.onSilent || job.silentSince !== undefined) return Infinity;
  return Date.parse(clockStart(job)) + within;
}

/**
 * When the counts are read next: after the schedule's next nominal time, the only moment its counters can
 * grow, plus a grace; no sooner than 5 minutes after the last read made after a nominal time (a job that
 * fires every second); once a day when it names no next time.
 */
export function countsDueAfter(job: WatchedJob, now: number): number {
  if (!job.config.onMissed) return Infinity;
  if (job.nextActionAt === undefined) return now + IDLE_COUNT_CHECK_MS;
  return Math.max(job.nextActionAt + COUNT_GRACE_MS, (job.nominalCheckAt ?? -Infinity) + COUNT_CHECK_MS);
}

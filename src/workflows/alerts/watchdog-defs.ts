/*
 * Names and shapes of the per-job watchdog (the dead-man switch and the server's missed/skipped counts),
 * shared by the watchdog workflow, the runs that report to it and the client that starts and stops it.
 * Persisted in histories: never rename the type, signals or the workflow id scheme; add optional fields only.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { CompiledAlertTarget } from '../alert-types';

/** Workflow type of the per-job watchdog. */
export const JOB_WATCHDOG_WORKFLOW_TYPE = 'jobWatchdogWorkflow';

/**
 * Task queue of the watchdogs unless the scheduler names another: any worker made by `createWatchdogWorker`
 * polls it, so a job's watchdog runs even when no worker of the job does.
 */
export const DEFAULT_WATCHDOG_TASK_QUEUE = 'tflow-watchdog';

/**
 * Patch id: before it raises `silent` or reports counts, the watchdog reads the job's schedule and obeys
 * it: a schedule gone or a job that no longer needs a watchdog ends it quietly, a changed configuration
 * is adopted first. So a watchdog never alerts for a job that a write it missed removed or changed.
 */
export const WATCHDOG_OBEYS_SCHEDULE_PATCH = 'tflow-watchdog-obeys-schedule';

/**
 * Patch id: the watchdog costs nothing while nothing can change. It reads the schedule's missed/skipped
 * counters once after each nominal time (plus a grace, no more often than every 5 minutes for a frequent job; once a
 * day when the schedule names no next time, e.g. paused), instead of every 5 minutes; a completed run's
 * `runSucceeded` moves the dead-man deadline without a timer of its own (the one durable timer is checked
 * against the last success when it fires). Histories recorded before it keep the 5-minute loop.
 */
export const WATCHDOG_AT_REST_PATCH = 'tflow-watchdog-at-rest';

/** Workflow id of the watchdog of a job: one per job id, in the job's namespace. */
export function watchdogWorkflowId(jobId: string): string {
  return `tflow-watchdog:${jobId}`;
}

/**
 * What a job's watchdog watches: compiled from the job's record, which the watchdog reads from the
 * schedule itself (so that the last write wins, whatever order the writers' signals arrive in).
 */
export interface WatchdogConfig {
  /** Dead-man switch: alert when no run has completed for this long. */
  expectSuccessWithinMs?: number;
  /** Where the dead-man alerts (silent, recovered) go. */
  onSilent?: CompiledAlertTarget;
  /** Where the server's missed (catch-up window) and skipped (overlap) counts are reported. */
  onMissed?: CompiledAlertTarget;
  /**
   * When the dead-man switch was set on the job (ISO 8601; from its `TflowAlerts` attribute): the clock
   * starts no earlier, so a switch added later (or a job id created again) never pages for the time
   * before it. Absent for jobs written before it was kept.
   */
  deadManSince?: string;
}

/** The schedule's missed/skipped counters as last read. */
export interface ScheduleCounts {
  missedCatchupWindow: number;
  overlapSkipped: number;
}

/** State carried across continue-as-new. */
export interface WatchdogState {
  jobId: string;
  /** Absent until the watchdog has read the job (at its start and after each `reconfigure`). */
  config?: WatchdogConfig;
  /** Last completed run, or when the watch (or its latest configuration) began (ISO 8601). */
  lastSuccessAt: string;
  /** True while a silent period is open (its alert was raised, no run has completed since). */
  silent: boolean;
  counts?: ScheduleCounts;
  /** When the counts were last read (ISO 8601). */
  countsAt?: string;
  /**
   * When the counts are read next (ISO 8601; WATCHDOG_AT_REST_PATCH): the schedule's next nominal time as
   * last read, plus a grace. Absent before the first read under the patch.
   */
  countsDueAt?: string;
  /** A `reconfigure` received and not yet acted on when the watchdog continued as new. */
  pendingReconfigure?: boolean;
  /** A completed run reported and not yet acted on when the watchdog continued as new. */
  pendingSuccess?: RunSucceeded;
}

/** What the watchdog's check activity reads of the schedule. */
export interface ScheduleWatch {
  state: 'paused' | 'deleted' | 'active';
  counts?: ScheduleCounts;
  /** What the job's alerts ask of its watchdog; absent when the job is gone or needs no watchdog. */
  config?: WatchdogConfig;
  /**
   * The schedule's next nominal time (ISO 8601), absent when it names none (paused, spent, gone). Absent in
   * histories recorded before WATCHDOG_AT_REST_PATCH.
   */
  nextActionAt?: string;
  /**
   * With `completedAfter`: the close time (ISO 8601) of a run of the job that completed after it, as
   * visibility lists them (a moment behind); absent when none is listed.
   */
  lastCompletedAt?: string;
}

/** What a read of the schedule also looks for. */
export interface WatchOptions {
  /**
   * Look for a run of the job that completed (not skipped) after this time (ISO 8601), in visibility: the
   * read made before raising `silent` asks, so that a run whose `runSucceeded` never came still counts.
   */
  completedAfter?: string;
}

/** A run of the job that completed. */
export interface RunSucceeded {
  workflowId: string;
  runId: string;
  /** Workflow time at which it completed (ISO 8601). */
  at: string;
}

/** Signal: a run of the job completed (sent by the run; a missing watchdog is fine). */
export const runSucceededSignal = defineSignal<[RunSucceeded]>('runSucceeded');
/**
 * Signal: the job changed (its alerts, or it was removed): the watchdog reads it again, and ends when the
 * job is gone or needs no watchdog. Sent with start by the scheduler.
 */
export const reconfigureSignal = defineSignal('reconfigure');
/**
 * Signal: a trigger or backfill of the job was just sent (sent by the scheduler; a missing watchdog is
 * fine). The server counts an overlap skip of such a run at once, not at a nominal time, so the watchdog
 * reads the counts within COUNT_GRACE_MS instead of after the next nominal time (up to a day away).
 */
export const countsChangedSignal = defineSignal('countsChanged');
/** Query: the watchdog's state now. */
export const watchdogStateQuery = defineQuery<WatchdogState>('watchdogState');

/** The watchdog's activity (activities/alerts/alert-activities.ts; persisted name: never rename). */
export interface WatchdogActivities {
  /** The job's schedule as the watchdog needs it. */
  tflowWatchSchedule: (jobId: string, opts?: WatchOptions) => Promise<ScheduleWatch>;
}

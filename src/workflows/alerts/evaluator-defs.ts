/*
 * Names and shapes of the shared alert evaluator: one long-lived workflow per alert task queue (in a
 * namespace) that evaluates the dead-man switch (silent, recovered) and the server's missed/skipped counts
 * (onMissed) of every job whose alerts it serves, and the one-alert delivery workflows it starts.
 * Persisted in histories: never rename a type, signal, query or id scheme; add optional fields only.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { CompiledAlertTarget, JobAlertEvent } from '../alert-types';

/** Workflow type of the shared evaluator. */
export const ALERT_EVALUATOR_WORKFLOW_TYPE = 'tflowAlertEvaluatorWorkflow';
/** Workflow type of one alert's delivery. */
export const ALERT_DELIVERY_WORKFLOW_TYPE = 'tflowAlertDeliveryWorkflow';

/**
 * Workflow id of the evaluator of the jobs whose alerts go to `taskQueue` (the schedulers'
 * `watchdogTaskQueue`): one per task queue in a namespace.
 */
export function alertEvaluatorWorkflowId(taskQueue: string): string {
  return `tflow-alerts:${taskQueue}`;
}

/**
 * What an alert is raised for, as the delivery's workflow id: derived from durable facts only (the job, the
 * last success a silent period began at, the schedule's counter value an alert brings the count to), so an
 * evaluator rebuilt from scratch derives the same id and Temporal refuses a second delivery of one cause.
 */
export type AlertCause =
  | { kind: 'silent' | 'recovered'; jobId: string; lastSuccessAt: string }
  | {
      kind: 'missed';
      jobId: string;
      reason: 'catchup-window' | 'overlap';
      count: number;
      /** When the schedule was created: a job id created again counts from zero again. */
      createdAt: string;
    }
  | {
      kind: 'missed';
      jobId: string;
      reason: 'not-started';
      /** The action time that never started (ISO 8601). */
      nominalTime: string;
      createdAt: string;
    };

/** The delivery workflow id of a cause (ids are kept for the namespace's retention). */
export function alertDeliveryWorkflowId(cause: AlertCause): string {
  if (cause.kind !== 'missed') return `tflow-alert:${cause.kind}:${cause.lastSuccessAt}:${cause.jobId}`;
  const which = cause.reason === 'not-started' ? Date.parse(cause.nominalTime) : cause.count;
  return `tflow-alert:missed:${cause.reason}:${which}:${Date.parse(cause.createdAt)}:${cause.jobId}`;
}

/** Input of a delivery workflow. */
export interface AlertDeliveryInput {
  target: CompiledAlertTarget;
  event: JobAlertEvent;
  /**
   * Written by the evaluator for an alert an earlier watchdog already delivered (its retirement): the
   * workflow only records the cause, so that no evaluator raises it again.
   */
  deliveredBefore?: boolean;
}

/** Input of the evaluator workflow, carried across continue-as-new. */
export interface AlertEvaluatorInput {
  /** The alert task queue it serves (its jobs' `watchdogTaskQueue`). */
  taskQueue: string;
  /** Jobs whose counts a trigger or backfill may just have grown, with when it was said (ISO 8601). */
  countsChanged?: Record<string, string>;
  /** What the last evaluation activity handed on. */
  carry?: AlertEvaluatorCarry;
  /**
   * The evaluation activity's heartbeat timeout (ms): a worker gone is noticed after it, and its
   * heartbeats (what `tflow doctor` reads) are at most 80% of it old. @default 30_000
   */
  heartbeatTimeoutMs?: number;
}

/**
 * What one evaluation activity hands the next (in its heartbeats, and in its result, which the workflow
 * passes on): what cannot be derived again from the schedules and visibility alone. Small: a few entries
 * per job that is silent now or whose counters are not zero.
 */
export interface AlertEvaluatorCarry {
  /** Runs that closed before this were seen (ISO 8601). */
  runsSeenUntil?: string;
  /** Open silent periods by job: the clock start their `silent` alert named (ISO 8601). */
  silent?: Record<string, string>;
  /** Counters already reported (or taken as the baseline), by job, where not zero. */
  reported?: Record<string, { missedCatchupWindow: number; overlapSkipped: number }>;
  /**
   * Action times the evaluator expected that passed or come within 2 minutes, by job (`onMissed` jobs
   * only, at most 500, the earliest first): `t` the times (epoch ms), `k` the schedule's conflict token at the read that listed them, `r`
   * its actions left. A successor matches them with the runs started, as its predecessor would have.
   */
  expected?: Record<string, { t: number[]; k?: string; r?: number }>;
  /** Jobs whose reads keep failing, with the attempts in a row (heartbeats only: `tflow doctor` reads it). */
  failing?: Record<string, number>;
  /** Waves evaluated by this activity, and when the last ended (heartbeats only: for operators and tests). */
  waves?: number;
  waveAt?: string;
  /** Jobs evaluated (heartbeats only). */
  jobs?: number;
}

/** What one run of the evaluation activity returns: it ends on its own after a while (history bounded). */
export interface AlertEvaluationEnd {
  /** Waves it evaluated. */
  waves: number;
  carry: AlertEvaluatorCarry;
}

/**
 * Signal: a trigger or backfill of the job was just sent (by the scheduler; best effort). The server counts
 * an overlap skip of such a run at once, not at a nominal time: the evaluator reads the job's counts
 * within a minute instead of after its next nominal time. Nothing depends on it arriving.
 */
export const alertCountsChangedSignal = defineSignal<[string]>('countsChanged');
/** Query: the jobs a `countsChanged` named, with when (read by the evaluation activity each wave). */
export const alertCountsChangedQuery = defineQuery<Record<string, string>>('countsChanged');

/** The evaluator's activities (activities/alerts/evaluator; persisted names: never rename). */
export interface AlertEvaluatorActivities {
  /** Evaluates the alerts of the queue's jobs, wave after wave, for a while; heartbeats each wave. */
  tflowEvaluateAlerts: (input: {
    taskQueue: string;
    carry?: AlertEvaluatorCarry;
  }) => Promise<AlertEvaluationEnd>;
}

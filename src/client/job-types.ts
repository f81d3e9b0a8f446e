import type { JobPolicies } from '../schedule/policies';
import type { Trigger } from '../schedule/trigger-types';
import type { SkipReason } from '../workflows/outcomes';

/*
 * What PipelineScheduler returns about jobs and their runs. `XDescription`-like outputs; inputs live
 * beside the scheduler (JobOptions) and in schedule/ (triggers, policies).
 */

/** A run the schedule started (from the schedule itself; see {@link JobRun} for the full record). */
export interface RecentRun {
  /** Nominal time: when the run was due. */
  scheduledAt: Date;
  /** When the schedule started it. */
  startedAt: Date;
  workflowId: string;
  runId: string;
}

/** Counters kept by Temporal for a schedule. */
export interface JobCounters {
  /** Runs started (scheduled, triggered and backfilled). */
  actionsTaken: number;
  /** Runs Temporal did not start because one was running (overlap SKIP / BUFFER_ONE). */
  skippedOverlap: number;
  /** Runs Temporal did not start because they were found later than the catch-up window. */
  missedCatchupWindow: number;
  /** Runs in flight now. */
  running: number;
}

interface JobBase {
  /** Job id, which is the Temporal Schedule id. */
  id: string;
  paused: boolean;
  note?: string;
  /** Next fire times, as Temporal computed them. */
  nextRunTimes: Date[];
  /** Latest runs started by the schedule, newest first. */
  recentRuns: RecentRun[];
}

/** A job created by temporal-flow. */
export interface ScheduledJob extends JobBase {
  foreign: false;
  /** Name of the scheduled pipeline. */
  pipeline: string;
  /**
   * The trigger as given at creation (or by rescheduleJob). When the schedule was edited outside
   * temporal-flow ({@link ScheduledJob.editedOutside}), the trigger its actual spec means instead.
   */
  trigger: Trigger;
  timezone: string;
  /** The policies as given. */
  policies: JobPolicies;
  /** Activity the worker runs when a scheduled run fails for good. */
  onError?: string;
  /** True when the schedule's spec no longer matches what temporal-flow set (edited in the Temporal UI/CLI). */
  editedOutside: boolean;
  /** With {@link ScheduledJob.editedOutside}: the trigger temporal-flow had set. */
  givenTrigger?: Trigger;
  /** Arguments of the first step. Only from getJob() and listJobs({ details: true }). */
  args?: unknown[];
  /** Only from getJob() and listJobs({ details: true }). */
  counters?: JobCounters;
  /** Runs left for a one-off job (1 before it ran). Only from getJob(). */
  remainingActions?: number;
  createdAt?: Date;
  updatedAt?: Date;
}

/** A schedule not created by temporal-flow: listed, never managed. */
export interface ForeignJob extends JobBase {
  foreign: true;
  /** Workflow type the schedule starts, when it starts one. */
  workflowType?: string;
}

export type JobListing = ScheduledJob | ForeignJob;

export interface JobFilter {
  /** Only jobs of this pipeline. */
  pipeline?: string;
  /** Only paused (true) or active (false) jobs. */
  paused?: boolean;
  /** Include schedules not created by temporal-flow. @default true */
  includeForeign?: boolean;
  /** Describe each job to add args and counters (one more call per job). @default false */
  details?: boolean;
}

export type JobRunStatus =
  | 'running'
  | 'completed'
  | 'failed'
  | 'skipped'
  | 'cancelled'
  | 'terminated'
  | 'timed-out'
  | 'continued-as-new';

/** One run of a job, from Temporal visibility. */
export interface JobRun {
  workflowId: string;
  runId: string;
  status: JobRunStatus;
  /** Why the run skipped its steps (status `skipped`). */
  skipReason?: SkipReason;
  /** Nominal time (`TemporalScheduledStartTime`): when the run was due. */
  scheduledAt?: Date;
  /**
   * A late run of a coalescing job (overlap SKIP): the latest missed occurrence it stood for, from which
   * its misfire grace was measured. Absent when the run stood for its own nominal time.
   */
  standsFor?: Date;
  /**
   * A run of a job that does not coalesce and has a misfire grace, a second or more late at its first
   * workflow task: the instant it was judged against the grace. When it was queued behind its predecessor
   * (overlap BUFFER_ALL or BUFFER_ONE), the instant it could have started had Temporal started each queued
   * run at once, plus its own wait for a worker; else its first workflow task. Absent on other runs
   * (judged at their first workflow task).
   */
  judgedAt?: Date;
  startedAt: Date;
  closedAt?: Date;
  durationMs?: number;
  /** Failure message of a failed run. */
  failure?: string;
}

export interface JobHistoryOptions {
  /** Most runs returned, newest first. @default 20 */
  limit?: number;
}

/** Overview of every job, for dashboards and `tflow jobs stats`. */
export interface JobStats {
  jobs: number;
  paused: number;
  foreign: number;
  /** Scheduled runs in flight. */
  running: number;
  /** The soonest next run over all active jobs. */
  nextRun?: { jobId: string; at: Date };
  /** Runs Temporal missed (later than the catch-up window), summed over jobs. */
  missed: number;
  /** Runs skipped: by Temporal on overlap, plus runs that skipped themselves (misfire, max-instances). */
  skipped: number;
  /** Jobs whose latest finished run failed. */
  failingJobs: string[];
}

import type { JobPolicies } from '../../schedule/policies';
import type { JobAlerts } from './store/job-alerts';
import type { Trigger } from '../../schedule/trigger-types';

/*
 * What PipelineScheduler returns about jobs and their runs: a `JobSummary` from listings, a
 * `JobDescription` from getJob(), as the SDK's ScheduleSummary and ScheduleDescription; inputs live
 * beside the scheduler (JobOptions) and in schedule/ (triggers, policies).
 */

/** A run the schedule started (from the schedule itself; see `JobRun` in run-types.ts for the full record). */
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

/** What every read says of a schedule, ours or not. */
interface JobBase {
  /** Job id, which is the Temporal Schedule id. */
  id: string;
  /** True when no run starts until resumeJob(). */
  paused: boolean;
  /** The schedule's note (given at creation, by modifyJob, pauseJob or resumeJob). */
  note?: string;
  /** Next fire times, as Temporal computed them. */
  nextRunTimes: Date[];
  /** Latest runs started by the schedule, newest first. */
  recentRuns: RecentRun[];
}

/** A job created by temporal-flow, as `listJobs()` lists it. */
export interface ScheduledJobSummary extends JobBase {
  foreign: false;
  /** Name of the scheduled pipeline. */
  pipeline: string;
  /**
   * The trigger as given at creation (or by rescheduleJob). When the schedule was edited outside
   * temporal-flow ({@link ScheduledJobSummary.editedOutside}), the trigger its actual spec means instead.
   */
  trigger: Trigger;
  /** The trigger's time zone (the scheduler's when the trigger named none). */
  timezone: string;
  /** The policies as given. */
  policies: JobPolicies;
  /** Activity the worker runs when a scheduled run fails for good. */
  onError?: string;
  /** `false` when the job's runs carry no summary and details for the Temporal UI (`PipelineSchedulerOptions.runMetadata`). */
  runMetadata?: false;
  /** True when the schedule's spec no longer matches what temporal-flow set (edited in the Temporal UI/CLI). */
  editedOutside: boolean;
  /** With {@link ScheduledJobSummary.editedOutside}: the trigger temporal-flow had set. */
  givenTrigger?: Trigger;
  /**
   * The exclusions the schedule carries (its `skip`): `weekend`, `holiday FR: Christmas Day`,
   * `2027-12-24 to 2027-12-31`, ... Absent when it has none.
   */
  exclusions?: string[];
  /**
   * The last year the dated exclusions (holidays, dates) reach: past it, the job runs on those days
   * until the job is written again (any write renews its holidays). Absent without dated exclusions.
   */
  exclusionsHeldUntil?: number;
}

/**
 * A job created by temporal-flow, as `getJob()` (and `listJobs({ details: true })`) describes
 * it: the summary plus what only a description of the schedule carries.
 */
export interface ScheduledJobDescription extends ScheduledJobSummary {
  /** Arguments of the pipeline's first step. */
  args: unknown[];
  /**
   * The job's alerts as given (see JobAlerts). Not in listings: their targets (webhook URLs and headers)
   * can hold secrets. Kept in the action's memo and, for edits made outside temporal-flow (which replace
   * the action), in the schedule's `TflowAlerts` search attribute, encrypted by the payload codec (without
   * one, that copy holds webhook targets only as a host and a hash).
   */
  alerts?: JobAlerts;
  /**
   * Alert targets an edit made outside temporal-flow (`temporal schedule update`, the Temporal UI) lost,
   * e.g. `['onSilent']`: the job's copy that survives such an edit held them only redacted (no codec).
   * Those alerts are not raised until they are set again: `modifyJob(id, { onSilent, expectSuccessWithin })`
   * or an apply of the job's file. `tflow doctor` reports such jobs.
   */
  alertsLost?: string[];
  /** Workflow id of the job's runs before the nominal time Temporal appends (`<this>-2026-12-01T02:00:00Z`). */
  workflowId: string;
  /** Temporal's counters of the schedule. */
  counters: JobCounters;
  /** Runs left for a one-off job (1 before it ran, 0 once it ran or when it runs at once); absent otherwise. */
  remainingActions?: number;
  /** When the schedule was created. */
  createdAt: Date;
  /** When the schedule was last updated, if ever. */
  updatedAt?: Date;
}

/** A schedule not created by temporal-flow: listed and described alike, never managed. */
export interface ForeignJob extends JobBase {
  foreign: true;
  /** Workflow type the schedule starts, when it starts one. */
  workflowType?: string;
}

/** What `listJobs()` returns for each schedule. */
export type JobSummary = ScheduledJobSummary | ForeignJob;

/** What `getJob()` (and `listJobs({ details: true })`) returns. */
export type JobDescription = ScheduledJobDescription | ForeignJob;

/**
 * @deprecated Use {@link ScheduledJobSummary} (listJobs) or {@link ScheduledJobDescription} (getJob).
 */
export type ScheduledJob = ScheduledJobSummary &
  Partial<Omit<ScheduledJobDescription, keyof ScheduledJobSummary>>;

/** @deprecated Use {@link JobSummary} (listJobs) or {@link JobDescription} (getJob). */
export type JobListing = ScheduledJob | ForeignJob;

export interface JobFilter {
  /** Only jobs of this pipeline. */
  pipeline?: string;
  /** Only paused (true) or active (false) jobs. */
  paused?: boolean;
  /** Include schedules not created by temporal-flow. @default true */
  includeForeign?: boolean;
  /**
   * Describe each job (one more call per job): the jobs are then {@link JobDescription}s, with args and
   * counters. @default false
   */
  details?: boolean;
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

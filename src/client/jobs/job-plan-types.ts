import type { PipelineLike } from '../../pipeline/builder';
import type { PipelineSpec } from '../../pipeline/spec';
import type { CalendarTrigger, CronTrigger, IntervalTrigger } from '../../schedule/trigger-types';
import type { JobOptions } from './store/job-options';
import type { FieldChange } from './job-view';

/*
 * Jobs as code: the types of a jobs file (defineJobs), of the plan that compares it with the namespace
 * (PipelineScheduler.plan) and of what apply did (PipelineScheduler.apply).
 */

/**
 * One job of a jobs file: the options `schedule()`/`scheduleInterval()` take, with a required `jobId` and
 * the pipeline to run (its name, among the file's `pipelines`, or the pipeline itself). One-off jobs
 * (`runAt`) are refused: once run they are deleted, and the next apply would create them again.
 */
export type JobDefinition = Omit<JobOptions, 'jobId' | 'replaceExisting'> &
  (CronTrigger | CalendarTrigger | IntervalTrigger) & {
    /** Id of the job (the Temporal Schedule id). Required: it is how a file and the namespace meet. */
    jobId: string;
    /** The pipeline to run: a name among the set's `pipelines`, or a pipeline. */
    pipeline: string | PipelineLike;
    /**
     * Whether the job is paused. When left out, the job's paused state (and its note, when paused) is
     * runtime state that on-call owns: apply keeps it as it finds it (a new job starts active).
     */
    paused?: boolean;
  };

/** What `defineJobs` takes. */
export interface JobSetDefinition {
  /**
   * Name of the set: the jobs it creates are recorded as its own, a plan deletes (with `prune`) only
   * those, and a job another set owns is not touched. Letters, digits, `.`, `_`, `-`; at most 100.
   */
  set: string;
  /** The pipelines that jobs name by name. */
  pipelines?: readonly PipelineLike[];
  jobs: readonly JobDefinition[];
}

/** A jobs file checked by {@link defineJobs}: each job's pipeline resolved. */
export interface JobSet {
  readonly set: string;
  readonly jobs: readonly CheckedJobDefinition[];
}

/** A job of a checked set: its options and the pipeline it runs. */
export interface CheckedJobDefinition {
  readonly jobId: string;
  readonly pipeline: PipelineLike;
  /** The job's options (the definition without `pipeline`). */
  readonly options: Omit<JobDefinition, 'pipeline'>;
  /** Its position in the file's `jobs`. */
  readonly index: number;
}

/** One problem of a jobs file: the job (by id, else position) and the option at fault. */
export interface JobSetProblem {
  /** The job's id, when it has a usable one. */
  readonly jobId?: string;
  /** Its position in `jobs`. */
  readonly index?: number;
  /** The option at fault (`cron`, `misfireGraceTime`, `pipeline`, ...). */
  readonly field: string;
  readonly message: string;
}

export interface PlanOptions {
  /** Delete the jobs this set owns that the file no longer lists. @default false */
  prune?: boolean;
}

/** What a plan does to one job. */
export const PLAN_ACTIONS = ['create', 'update', 'delete', 'unchanged', 'blocked'] as const;
export type PlanAction = (typeof PLAN_ACTIONS)[number];

/** Why a job's id cannot be used by this set. */
export type BlockedReason =
  /** A schedule temporal-flow did not create holds the id. */
  | 'foreign'
  /** A job of another set holds it. */
  | 'other-set'
  /** A job temporal-flow created outside any set (schedule(), an older deploy script) holds it. */
  | 'no-set';

/** One job of a plan. */
export interface PlannedJob {
  readonly jobId: string;
  readonly action: PlanAction;
  /** Name of the pipeline (the file's for create/update/unchanged, the schedule's for delete). */
  readonly pipeline?: string;
  /**
   * Field by field, what apply changes: on an update `from -> to`, on a create the new values (`to`),
   * on a delete the values removed (`from`).
   */
  readonly changes: readonly FieldChange[];
  /**
   * Edits made outside temporal-flow since the last apply (Temporal UI, `temporal schedule update`):
   * `from` as apply wrote it (absent when not recorded), `to` as the schedule has it now. Apply writes
   * the file's values over them (see {@link PlannedJob.changes}).
   */
  readonly drift?: readonly FieldChange[];
  /** Runtime state apply keeps as it is, e.g. `paused by hand (note "db maintenance")`. */
  readonly kept?: readonly string[];
  /** With action `blocked`: who holds the id. */
  readonly blocked?: { readonly reason: BlockedReason; readonly owner?: string; readonly message: string };
}

/** What `plan()` returns: every job of the file (and, with prune, each job of the set to delete). */
export interface JobPlan {
  readonly set: string;
  readonly prune: boolean;
  readonly namespace: string;
  readonly jobs: readonly PlannedJob[];
  /** How many jobs get each action. */
  readonly summary: Readonly<Record<PlanAction, number>>;
  /** True when apply would write anything (a create, an update or a delete). */
  readonly hasChanges: boolean;
}

/** What `apply()` did. */
export interface ApplyResult {
  readonly set: string;
  readonly created: readonly string[];
  readonly updated: readonly string[];
  readonly deleted: readonly string[];
  readonly unchanged: readonly string[];
  /** Jobs left alone because another owner holds their id. */
  readonly blocked: readonly string[];
}

/** A pipeline as a set resolves it: its spec (for a name lookup). */
export type ResolvedPipelines = ReadonlyMap<string, { pipeline: PipelineLike; spec: PipelineSpec }>;

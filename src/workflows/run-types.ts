import type { PipelineSpec } from '../pipeline/spec';
import type { RunAlerts } from './alert-types';
import type { RunSkipReason } from './outcomes';
import type { WhenFull } from '../pipeline/concurrency';

/*
 * Shapes persisted in workflow histories: the run input, the result and the failure details. Add optional
 * fields only; renaming or removing one breaks the replay of recorded runs.
 */

/**
 * Type name of `pipelineWorkflow`, the one workflow registered for runs. Persisted in every history and
 * schedule: never rename.
 */
export const PIPELINE_WORKFLOW_TYPE = 'pipelineWorkflow';

/**
 * Extra time Temporal's execution timeout leaves after a pipeline's own `timeout`: the workflow's timer
 * fires first, so a timed-out run still runs its compensations and failure hook before the backstop.
 */
export const TIMEOUT_GRACE_MS = 5 * 60_000;

/** Name of the query that returns {@link PipelineProgress}. */
export const PROGRESS_QUERY = 'progress';

/**
 * Patch id of the `onFailure` hook run once (one attempt) with its failure logged; runs recorded before it
 * replay with the three silent attempts they were scheduled with. Persisted in histories: never rename.
 */
export const ON_FAILURE_ONCE_PATCH = 'tflow-on-failure-once';

/** What a scheduled run knows of its job, set by the scheduler in the schedule's action. */
export interface RunJobContext {
  jobId: string;
  /** Runs starting later than this after their nominal time end as skipped (misfire). */
  misfireGraceMs?: number;
  /** Concurrency bound enforced by the per-job semaphore when above 1. */
  maxInstances?: number;
  /** Name of an activity the run calls with a {@link JobErrorEvent} when it fails for good. */
  onError?: string;
  /** A one-off job: the run that used the schedule's last action deletes the schedule when it ends. */
  once?: boolean;
  /**
   * The job coalesces missed occurrences (overlap SKIP, one instance): while this run waits for a worker,
   * Temporal skips the occurrences that come due, so a late run stands for the latest of them (its
   * misfire grace counts from that occurrence). Absent in runs scheduled before temporal-flow set it.
   */
  coalesce?: boolean;
  /** The alerts this run raises itself (onMissed, onLate) and whether it reports to the job's watchdog. */
  alerts?: RunAlerts;
  /**
   * The job's DST policy, compiled: nominal times (UTC ISO, `...Z`) of Temporal's fires that the policy
   * does not run; a run whose nominal time is listed skips itself with reason `dst`. Absent without a
   * policy (and in runs scheduled before temporal-flow had one).
   */
  dstSkips?: string[];
  /**
   * End (UTC ISO, `...Z`) of the horizon the job's schedule was compiled for: the years its holiday
   * exclusions and weekday corrections are held for, and its DST policy's entries and skips, whichever ends
   * first. A run starting less than a year before it renews the job (see horizon-renewal.ts). Absent for
   * jobs without such a horizon (and in runs scheduled before temporal-flow set it).
   */
  horizonEnd?: string;
}

/**
 * Memo key of a scheduled run that stood for a later occurrence than its own (see
 * {@link RunJobContext.coalesce}): that occurrence's time, ISO 8601. Persisted in visibility: never rename.
 */
export const STANDS_FOR_MEMO = 'tflowStandsFor';

/**
 * Memo key of a late scheduled run of a buffering job (overlap BUFFER_ALL or BUFFER_ONE) that was judged
 * against its misfire grace by a lookup (see src/workflows/guards/judged-at.ts): the instant it was judged at,
 * ISO 8601. The next buffered run reads it. Persisted in visibility: never rename.
 */
export const JUDGED_AT_MEMO = 'tflowJudgedAt';

/**
 * Memo key beside {@link JUDGED_AT_MEMO}: the run's first workflow task (ISO 8601), so that its successor
 * can tell the run's own time with a worker. Persisted in visibility: never rename.
 */
export const FIRST_TASK_MEMO = 'tflowFirstTaskAt';

/** What the `onError` activity of a job receives when a scheduled run fails for good. */
export interface JobErrorEvent {
  jobId: string;
  pipeline: string;
  workflowId: string;
  runId: string;
  /** Message of the failure. */
  message: string;
  /** Failure type, e.g. `PipelineFailed`. */
  type?: string;
  /** Details of the failure (for `PipelineFailed`: {@link PipelineFailureDetails}). */
  details?: unknown;
}

/** Input of {@link PIPELINE_WORKFLOW_TYPE}. */
export interface PipelineRunInput {
  spec: PipelineSpec;
  /** Arguments of the first step. */
  args: unknown[];
  job?: RunJobContext;
  /** Set by `PipelineClient.redrive()`: start at this top-level step instead of the first one. */
  redrive?: RedriveContext;
  /** Set on a run started by another run's `.then()`: where it comes from, and how long it waits first. */
  chain?: ChainContext;
  /**
   * The run's concurrency key, computed where the run was started (the client, or the scheduler when the
   * job was created) by the pipeline's `concurrencyKey` function: at most `max` runs of the pipeline with
   * this key run at once; the others wait in line.
   */
  concurrency?: RunConcurrency;
}

/** The run a chained run was started by (see `Pipeline.then`). */
export interface ChainContext {
  workflowId: string;
  runId: string;
  /** The chained run waits this long before its first node (a durable timer). */
  delayMs?: number;
}

/**
 * Memo key of a chained run: the workflow id of the run whose `.then()` started it. Persisted in
 * visibility: never rename.
 */
export const CHAINED_FROM_MEMO = 'tflowChainedFrom';

/** What a completed run's `.then()` did. */
export interface ChainedRun {
  pipeline: string;
  workflowId: string;
  /** Run id of the run started; absent when a run with that id existed already (a deduplicated chain). */
  runId?: string;
}

/** See {@link PipelineRunInput.concurrency}. */
export interface RunConcurrency {
  key: string;
  max: number;
  /** The pipeline's `maxConcurrentTotal`: every key of the pipeline shares one semaphore. */
  total?: number;
  /** The pipeline's `whenFull`, when not `queue`. */
  whenFull?: Exclude<WhenFull, 'queue'>;
}

/** Where a redriven run comes from and where it starts. */
export interface RedriveContext {
  /** Id of the top-level step (or parallel group / map) to start at; `args` are its recorded input. */
  fromStep: string;
  /** The failed run this one redrives. */
  workflowId: string;
  runId?: string;
  /**
   * The occurrence the failed run stood for (see occurrence.ts), so that steps get the same idempotency
   * key as in the failed run. Absent in runs redriven before it existed: the failed run's workflow id.
   */
  occurrence?: string;
  /**
   * The dead letter this run redrives (its id: the workflow id of the run that first failed). Set when the
   * letter came from the dead-letter queue: the run removes it when it completes, and updates it when it
   * fails. Absent in redrives of runs that failed before the queue existed.
   */
  deadLetter?: string;
}

/** What happened to one compensation during a saga. */
export interface CompensationOutcome {
  /** Id of the step that was undone. */
  stepId: string;
  /** The compensation activity. */
  activity: string;
  status: 'completed' | 'failed';
  /** Failure message of a compensation that failed for good. */
  error?: string;
  /** Attempts the compensation made, when known. */
  attempts?: number;
}

/** A finished step and how long it took (workflow time). */
export interface StepRecord {
  id: string;
  durationMs: number;
}

/** Result of a run that did not fail. */
export interface PipelineRunResult {
  status: 'completed' | 'skipped';
  /** Output of the last step (completed runs). */
  output?: unknown;
  /**
   * Why a run was skipped: `misfire` (started too late), `max-instances` (too many running), `dst`, or
   * `concurrency` (its key was full under `whenFull: 'skip'`).
   */
  skipReason?: RunSkipReason;
  /**
   * A late scheduled run of a coalescing job: the latest missed occurrence it stood for (ISO 8601), whose
   * lateness the misfire grace was measured against. Absent when the run stood for its own nominal time.
   */
  standsFor?: string;
  steps: StepRecord[];
  /** Runs started by the pipeline's `.then()`, in order. */
  chained?: ChainedRun[];
}

/** What the `progress` query returns. */
export interface PipelineProgress {
  pipeline: string;
  status: 'running' | 'compensating' | 'completed' | 'failed' | 'cancelled' | 'skipped';
  /** The step most recently started and still running; null when none is. */
  currentStep: string | null;
  /** Every step running now (several inside a parallel group or a map). */
  running?: string[];
  /** Finished steps in completion order (a map node counts once, when all its items are done). */
  completed: StepRecord[];
  /** Compensations run so far, in the order they ran. */
  compensations?: CompensationOutcome[];
  /** Sleeps and waits for a signal in progress (and a chained run's initial delay, as step `then-delay`). */
  waiting?: WaitingStep[];
  /**
   * Child pipelines started by this run, with their workflow ids; `PipelineClient.progress()` adds the
   * progress of the running ones (a workflow cannot query another).
   */
  children?: ChildRunProgress[];
}

/** A node that waits: a timer (`sleep`) or a signal (`waitFor`). */
export interface WaitingStep {
  step: string;
  kind: 'sleep' | 'waitFor';
  /** When the timer fires or the wait times out (ISO 8601); absent for a wait without a timeout. */
  until?: string;
  /** The signal a `waitFor` waits for. */
  signal?: string;
}

/** A child pipeline of a run. */
export interface ChildRunProgress {
  step: string;
  workflowId: string;
  status: 'running' | 'completed' | 'failed';
  /** The child's own progress (filled by `PipelineClient.progress()` for running children). */
  progress?: PipelineProgress;
}

/** Details of the `PipelineFailed` ApplicationFailure: enough to understand and redrive the run. */
export interface PipelineFailureDetails {
  pipeline: string;
  failedStep: string;
  /** Attempts the failed step made (exact when the worker runs temporal-flow's activity interceptor). */
  attempts?: number;
  /** Input (arguments) the failed step received. */
  input: unknown;
  message: string;
  /** `ApplicationFailure.type` (or error class name) of the step's last failure, when known. */
  errorType?: string;
  completedSteps: string[];
  /** Top-level node the failed step belongs to (itself, or its parallel group / map): redrive starts here. */
  failedNode?: string;
  /** Input of every top-level node that started, by id: `redrive({ fromStep })` reads it. */
  nodeInputs?: Record<string, unknown[]>;
  /** Compensations run, in order, with their outcome. */
  compensations?: CompensationOutcome[];
  /** True when the whole-run timeout stopped the run. */
  timedOut?: boolean;
}

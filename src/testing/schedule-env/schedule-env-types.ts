import type { DstPolicy } from '../../schedule/dst-policy';
import type { Steps } from '../../worker/create-worker';
import type { JobAlertEvent } from '../../workflows/alert-types';
import type { CompensationOutcome, PipelineFailureDetails } from '../../workflows/run-types';

/*
 * What the schedule test environment takes and returns (schedule-env.ts is the facade, docs/testing.md
 * "Testing your schedules" the user's page).
 */

/** How long one attempt of a step takes in virtual time: a duration, or a function of the attempt. */
export type StepDuration = string | number | ((attempt: StepAttemptInfo) => string | number);

/** What a {@link StepDuration} function is told. */
export interface StepAttemptInfo {
  /** The step's id (`<map id>[i]` for a map item, `<step id>:compensate` for a compensation). */
  stepId: string;
  /** The activity the attempt runs. */
  activity: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** The arguments of the call. */
  args: unknown[];
}

/** Options of {@link createScheduleTestEnv}. */
export interface ScheduleTestEnvOptions {
  /** Virtual time at creation (an instant with an offset, or a Date). */
  start: Date | string;
  /** The worker's steps (your steps object): the real functions the runs call. */
  steps: Steps;
  /** Steps replaced in this environment (as `createPipelineTestEnv`'s `replace`). */
  replace?: Steps;
  /** Steps wrapped in this environment (as `createPipelineTestEnv`'s `wrap`). */
  wrap?: Record<string, (original: Steps[string]) => Steps[string]>;
  /**
   * How long each attempt of a step takes in virtual time, by activity name. A step function's own real
   * time never counts. @default 0 for every step
   */
  durations?: Record<string, StepDuration>;
  /** The scheduler's default zone (PipelineScheduler's `timezone`). @default 'UTC' */
  timezone?: string;
  /** The scheduler's default DST policy (PipelineScheduler's `dst`). */
  dst?: DstPolicy;
  /** The scheduler's default onError (PipelineScheduler's `onError`). */
  onError?: string;
  /**
   * Where in its jitter window each run starts, 0 (the nominal time) to 1 (the window's end), or `'seeded'`
   * for a pseudo-random place from `seed` (the server's own draw depends on its namespace id). @default 'seeded'
   */
  jitter?: number | 'seeded';
  /** Seed of the `'seeded'` jitter. @default 1 */
  seed?: number;
}

/** A span of virtual time `[from, to)`. */
export interface VirtualSpan {
  from: Date | string;
  to: Date | string;
}

/** How a run began: by the schedule's spec, `triggerJob`, or `backfillJob`. */
export type RunSource = 'schedule' | 'trigger' | 'backfill';

/**
 * Why a nominal time ran no step. Set by the server: `overlap` (a run was open: SKIP, or BUFFER_ONE's
 * second), `catchup-window` (found later than the catch-up window, e.g. after server downtime), `paused`
 * (the job was paused), `buffer-dropped` (a pause dropped it from the buffer), `cancelled` / `terminated`
 * (ended by the next run's CANCEL_OTHER / TERMINATE_OTHER before its first step), `removed` (the job was
 * removed while it waited in the buffer). Set by the run's guards: `misfire`, `max-instances`, `dst`.
 */
export type OccurrenceSkipReason =
  | 'overlap'
  | 'catchup-window'
  | 'paused'
  | 'buffer-dropped'
  | 'cancelled'
  | 'terminated'
  | 'removed'
  | 'misfire'
  | 'max-instances'
  | 'dst';

/**
 * What became of one nominal time: `ran` (its run reached its steps; see its run's status), `skipped`
 * (with a reason), `buffered` (held by the server behind the open run, not started yet), `running` (its run
 * started and has not reached its steps' end yet).
 */
export type OccurrenceOutcome = 'ran' | 'skipped' | 'buffered' | 'running';

/** One nominal time of a job and its outcome. */
export interface OccurrenceRecord {
  jobId: string;
  /** Nominal time, UTC ISO (`TemporalScheduledStartTime`; the call's time for a trigger). */
  nominal: string;
  source: RunSource;
  outcome: OccurrenceOutcome;
  reason?: OccurrenceSkipReason;
  /** The run the server started for it, when it started one. */
  workflowId?: string;
  /** A late run of a coalescing job: the latest occurrence it stood for. */
  standsFor?: string;
}

/** One attempt of a step. */
export interface AttemptRecord {
  attempt: number;
  startedAt: string;
  endedAt: string;
  /** `timeout`: past its startToClose (or scheduleToClose); `lost`: its worker went down under it. */
  outcome: 'completed' | 'failed' | 'timeout' | 'lost';
  error?: string;
  errorType?: string;
}

/** A step (or a map item, or a compensation) of a run, with every attempt. */
export interface StepRecord {
  stepId: string;
  activity: string;
  attempts: AttemptRecord[];
  status: 'completed' | 'failed' | 'cancelled' | 'running';
}

/** One run (workflow execution) the server started. */
export interface RunRecord {
  jobId: string;
  workflowId: string;
  nominal: string;
  source: RunSource;
  /** When the server started it. */
  startedAt: string;
  /** Its first workflow task (a worker took it): the guards judge it then. */
  firstTaskAt?: string;
  closedAt?: string;
  status: 'running' | 'completed' | 'failed' | 'skipped' | 'cancelled' | 'terminated';
  skipReason?: 'misfire' | 'max-instances' | 'dst';
  standsFor?: string;
  /** How late its guards judged it, in ms. */
  lateMs?: number;
  output?: unknown;
  steps: StepRecord[];
  compensations: CompensationOutcome[];
  /** A failed run's `PipelineFailed` details (what its dead letter holds). */
  failure?: PipelineFailureDetails;
}

/** A failed run's dead letter, as `listDeadLetters()` would list it. */
export interface VirtualDeadLetter {
  jobId: string;
  workflowId: string;
  failedAt: string;
  details: PipelineFailureDetails;
}

/** An alert the environment captured (never sent): the event its target would have received. */
export interface CapturedAlert {
  /** Where it would have gone: `onMissed`, `onLate`, `onSilent`. */
  alert: 'onMissed' | 'onLate' | 'onSilent';
  event: JobAlertEvent;
}

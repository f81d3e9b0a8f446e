/*
 * What the checker records of a run (the calls asked, with when each was sent and answered, and what was
 * observed at rest), as plain data: the runner (runner.ts) writes it, the invariants (invariants.ts) read
 * it, and the unit tests (test/unit/checker-*.test.ts) write bad ones by hand.
 */
import type { JobRun } from '../../src/client/runs/run-types';
import type { Trigger } from '../../src/schedule/trigger-types';
import type { JobSpec, TimedOp } from './generator';
import type { ModelTrigger } from './nominal-times';
import type { StepRecord } from './pipelines';
import type { Delivery } from './receiver';
import type { ServerFault } from './servers';

/** One client call as asked: when it was sent (t0) and answered (t1), and how it ended. */
export interface Call {
  t0: number;
  t1: number;
  ok: boolean;
  error?: string;
  /** The code of a temporal-flow error (`JOB_NOT_FOUND`...), when the call threw one. */
  code?: string;
}

export interface JobLife {
  id: string;
  spec: JobSpec;
  /** The trigger as the product was given it. */
  trigger: Trigger;
  /** The same trigger as the checker's own model reads it (nominal-times.ts). */
  model: ModelTrigger;
  /** rescheduleJob calls, in the order sent, each with the trigger it gave and the model's reading of it. */
  reschedules: (Call & { trigger: Trigger; model: ModelTrigger })[];
  /**
   * The create and each modify call, with what each set: the misfire grace (ms, null: none), for I1d, and
   * the args' `ms` (how long the steps work, which every step logs), for I7.
   */
  edits: (Call & { graceMs: number | null; workMs: number })[];
  create: Call;
  /** When the schedule began processing its times (its `info.createdAt`), when read. */
  createdAt?: number;
  /** pause / resume / remove, in the order they were sent (`cli`: with the temporal CLI). */
  states: (Call & { kind: 'pause' | 'resume' | 'remove'; cli?: boolean })[];
  triggers: Call[];
  backfills: (Call & { from: number; to: number })[];
  /** The checker's own pause before it read the counters (quiesce); absent if the job was removed before. */
  finalPause?: Call;
  /** The checker's own removal after it read the counters (which ends the job's watchdog). */
  finalRemove?: Call;
  /**
   * Paused at rest, then found gone when its counters were read: a remove that failed on the client may
   * have landed on the server after all. Its counters are lost (I1c is not checked for it).
   */
  vanishedAtRest?: boolean;
  counters?: {
    skippedOverlap: number;
    missedCatchupWindow: number;
    /** Runs held back when the job was read (its buffer), and those dropped from a full buffer. */
    buffered: number;
    bufferDropped: number;
  };
  /**
   * The schedule's counters read (a describe) just before the runner's first remove of it, and the first
   * time it had not processed then (its next action time: Temporal computes it from the last time it
   * processed): I1c for a job removed before the rest, on the times before that.
   */
  countersBeforeRemove?: NonNullable<JobLife['counters']> & { readAt: number; processedBefore: number };
  runs: JobRun[];
}

export interface DirectRun {
  kind: 'key' | 'parent' | 'child' | 'flaky' | 'redrive';
  workflowId: string;
  key?: string;
  start: Call;
  status?: string;
  closedAt?: number;
  /** redrive: the letter it redrove. */
  letter?: string;
  /**
   * flaky: when the runner wrote its fix (after the run failed, or after 120 s of waiting for it to): a run
   * whose charge first started after this completes, and is no dead letter.
   */
  fixedAt?: number;
}

export interface Fault {
  kind: 'worker-kill' | 'alert-worker-kill' | 'client-kill' | ServerFault;
  t0: number;
  t1: number;
  pid?: number;
}

/** Temporal or its database down: fires, starts and calls wait for it. */
export const isServerFault = (f: Fault) => f.kind === 'temporal-kill' || f.kind === 'postgres-stop';

export interface History {
  seed: number;
  durationMs: number;
  plan: TimedOp[];
  calls: { op: string; call: Call }[];
  jobs: JobLife[];
  direct: DirectRun[];
  faults: Fault[];
  steps: StepRecord[];
  killedAt: Map<number, number>;
  alerts: Delivery[];
  letters: { workflowId: string; lastWorkflowId: string; failures: number }[];
  /** Pipeline runs still running once the system was left at rest for {@link QUIESCE_MS}. */
  stillRunning: { workflowId: string; type: string; startedAt: number }[];
  /** When the runner stopped collecting (the last alert the receiver can have counted). */
  endAt?: number;
  /** When quiescence began (no more ops, faults or new runs). */
  restAt: number;
  /** Calls that took {@link CALL_DEADLINE_MS} or more (past their deadline), by kind; `hung` when the timer ended them. */
  slowCalls?: { op: string; t0: number; ms: number; hung: boolean; error?: string }[];
  /** Creates the plan asked for but left out: no room within a minute ({@link MAX_LIVE_JOBS}). */
  createsLeftOut: number;
  /**
   * Why each run that failed without a cause failed (a job run `failed`, a key, parent, child or redrive
   * run not COMPLETED), read from its history at rest (failure-evidence.ts), by workflow id.
   */
  failures?: Record<string, string>;
  /**
   * Runs of the jobs that ran steps (the steps' log says so) but that visibility still did not list when
   * the read-back gave up ({@link READ_BACK_MS}): the history is incomplete and is not checked further.
   */
  unread?: string[];
}

/** Jobs alive at once: each fires every few seconds, and the server shares 2 cores with the rest. */
export const MAX_LIVE_JOBS = 8;

/**
 * Every client call of the checker is answered within this, or fails: a gRPC deadline on its connections,
 * and a timer beside it for a call that waits on something else. A call the server never answers is then
 * a failed call (its effect unknown to the model), counted and logged, and never holds the run up.
 */
export const CALL_DEADLINE_MS = 60_000;

/** How long every run gets, once the system is at rest, to end: far above a run's own length (~15 s). */
export const QUIESCE_MS = 120_000;

/** How long the read-back waits for visibility to list every run the steps' log shows (a backlog settles). */
export const READ_BACK_MS = 600_000;

import { PIPELINE_WORKFLOW_TYPE } from '../../../workflows/run-types';

/*
 * The memo temporal-flow puts on each schedule it creates. It marks the schedule as ours (others are
 * listed as foreign) and records what cannot be read back from Temporal. Persisted: add fields only.
 */

/** Memo key on schedules created by temporal-flow. */
export const SCHEDULE_MEMO_KEY = 'tflow';

export interface JobMemo {
  v: 1;
  /** Name of the scheduled pipeline. */
  pipeline: string;
  /**
   * The jobs file (set) that created the job with `apply()`: the set owns it (a schedule's memo cannot be
   * updated, so ownership outlives any edit, `temporal schedule update` included). Absent on jobs created
   * otherwise.
   */
  set?: string;
}

/**
 * Key, in the action's memo, of what `apply()` wrote last (see {@link AppliedMark}). Persisted: its
 * meaning must not change.
 */
export const APPLIED_MEMO_KEY = 'tflowApplied';

/**
 * What the last `apply()` of a set wrote to one of its jobs, in the canonical view of job-view.ts: a
 * later plan compares the schedule with it to tell an edit made outside temporal-flow (drift).
 */
export interface AppliedMark {
  v: 1;
  /** The set that wrote it. */
  set: string;
  /** The job's view as written, field by field (job-view.ts). */
  view: Record<string, string>;
  /** The trigger as the plan showed it. */
  trigger: string;
}

/**
 * The memo of a schedule temporal-flow created (our memo, and an action starting our workflow);
 * undefined for any other schedule.
 */
export function ourJobMemo(
  memo: Record<string, unknown> | undefined,
  workflowType: string | undefined,
): JobMemo | undefined {
  const value = memo?.[SCHEDULE_MEMO_KEY] as Partial<JobMemo> | null | undefined;
  const ours =
    workflowType === PIPELINE_WORKFLOW_TYPE && value?.v === 1 && typeof value.pipeline === 'string';
  return ours ? (value as JobMemo) : undefined;
}

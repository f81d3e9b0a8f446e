/*
 * The memo temporal-flow puts on each schedule it creates. It marks the schedule as ours (others are
 * listed as foreign) and records what cannot be read back from Temporal. Persisted: add fields only.
 */

/** Memo key on schedules created by temporal-flow. */
export const JOB_MEMO_KEY = 'tflow';

export interface JobMemo {
  v: 1;
  /** Name of the scheduled pipeline. */
  pipeline: string;
}

export function isJobMemo(value: unknown): value is JobMemo {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as JobMemo).v === 1 &&
    typeof (value as JobMemo).pipeline === 'string'
  );
}

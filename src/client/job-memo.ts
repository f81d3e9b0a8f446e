import { PIPELINE_WORKFLOW_TYPE } from '../workflows/run-types';

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

/**
 * The memo of a schedule temporal-flow created (our memo, and an action starting our workflow);
 * undefined for any other schedule.
 */
export function ourJobMemo(
  memo: Record<string, unknown> | undefined,
  workflowType: string | undefined,
): JobMemo | undefined {
  const value = memo?.[JOB_MEMO_KEY] as Partial<JobMemo> | null | undefined;
  const ours =
    workflowType === PIPELINE_WORKFLOW_TYPE && value?.v === 1 && typeof value.pipeline === 'string';
  return ours ? (value as JobMemo) : undefined;
}

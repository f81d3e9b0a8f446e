/*
 * Names and shapes of the per-job semaphore, shared by the semaphore workflow, the pipeline run that holds
 * a slot and the activity that asks for one. Persisted in histories: never rename the type, update or
 * signal names; add optional fields only.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

/** Workflow type of the per-job semaphore. */
export const JOB_SEMAPHORE_WORKFLOW_TYPE = 'jobSemaphoreWorkflow';

/** Workflow id of the semaphore of a job: one per job id, in the job's namespace. */
export function semaphoreWorkflowId(jobId: string): string {
  return `tflow-semaphore:${jobId}`;
}

/** A run holding (or asking for) a slot. */
export interface SlotHolder {
  workflowId: string;
  runId: string;
}

export interface SlotRequest extends SlotHolder {
  /** The job's maxInstances: the request is refused when this many runs hold a slot. */
  max: number;
}

/** State carried across continue-as-new. */
export interface SemaphoreState {
  holders: SlotHolder[];
}

/** Update: true when the slot is granted (idempotent for a holder that has it), false when the job is full. */
export const acquireSlotUpdate = defineUpdate<boolean, [SlotRequest]>('acquireSlot');
/** Signal: the run gives its slot back (sent from its `finally`, even on failure or cancellation). */
export const releaseSlotSignal = defineSignal<[SlotHolder]>('releaseSlot');
/** Query: the runs holding a slot now. */
export const holdersQuery = defineQuery<SlotHolder[]>('holders');

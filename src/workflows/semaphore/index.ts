/*
 * The slot semaphore (one per job for maxInstances, one per pipeline concurrency key). Uses run/ and the
 * role root.
 */
export {
  acquireSlotUpdate,
  CODEC_SEMAPHORE_TASK_QUEUE,
  concurrencySemaphoreId,
  concurrencyTotalSemaphoreId,
  holdersQuery,
  queueForSlotUpdate,
  releaseSlotSignal,
  SEMAPHORE_CHECK_ACTIVITY_PATCH,
  SEMAPHORE_LIVENESS_PATCH,
  SEMAPHORE_LOCAL_CHECK_PATCH,
  SEMAPHORE_OWN_QUEUE_PATCH,
  SEMAPHORE_TASK_QUEUE,
  SEMAPHORE_WORKFLOW_TYPE,
  type SemaphoreActivities,
  type SemaphoreState,
  type SlotAnswer,
  semaphoreWorkflowId,
  SLOT_REASK_PATCH,
  slotGrantedSignal,
  type SlotHolder,
  type SlotRequest,
  waitingQuery,
} from './semaphore-defs';
export { jobSemaphoreWorkflow } from './semaphore-workflow';
export { SlotTable, slotIdOf } from './slot-table';

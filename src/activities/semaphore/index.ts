/*
 * The slot semaphore's activities (acquire, queue, live holders).
 */
export { slotActivities, tflowAcquireSlot, tflowLiveHolders, tflowQueueForSlot } from './slot-activities';

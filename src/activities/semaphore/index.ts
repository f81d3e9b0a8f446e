/*
 * The slot semaphore's activities (acquire, queue, live holders).
 */
export { slotActivities, slotActivitiesOn, tflowLiveHolders } from './slot-activities';

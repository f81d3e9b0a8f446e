/*
 * Filing a dead letter with its keeper.
 */
export { tflowFileDeadLetter } from './dead-letter-activities';

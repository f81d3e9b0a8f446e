/*
 * The guards of a scheduled run: misfire, maxInstances, coalescing, buffered judgement, DST, horizon
 * renewal, concurrency keys. Uses run/, semaphore/, alerts/ and the role root.
 */
export { judgedOccurrence, type JudgedOccurrence } from './coalesce';
export { withConcurrencySlot } from './concurrency-guard';
export {
  COALESCE_PATCH,
  DST_GUARD_PATCH,
  HORIZON_RENEWAL_PATCH,
  type JobGuardActivities,
  JUDGED_AT_PATCH,
  type JudgedAtRequest,
  type LatestOccurrenceRequest,
} from './guard-defs';
export { HORIZON_RENEWAL_THRESHOLD_MS, horizonRenewalDue } from './horizon-renewal';
export { runWithJobGuards } from './job-guards';
export { judgedBehindPredecessor, type Judgement } from './judged-at';
export { tflowJudgedAt, tflowLatestOccurrence } from './lookup-activities';

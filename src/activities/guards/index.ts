/*
 * The activities of a scheduled run's guards: one-off clean-up, horizon renewal and the lookups of late
 * runs.
 */
export { jobGuardActivities, tflowFinishOneOff, tflowRenewHorizon } from './guard-activities';
export { tflowJudgedAt, tflowLatestOccurrence } from './guard-lookups';
export { queuedJudgedAt } from './judged-at-lookup';
export { latestOccurrence } from './latest-occurrence';

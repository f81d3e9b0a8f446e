/*
 * The job's store on its schedule: options checked into a record, the memo and record codecs, the update
 * builders and the sender with its conflict retries. Uses runs/ and the role root; never the jobs/ files
 * above it.
 */
export {
  createOptions,
  DUE_MEMO_KEY,
  dueBackfill,
  dueMarkOf,
  FINISHED_MEMO_KEY,
  finishedUpdate,
  type JobWrite,
  modifyUpdate,
  type NewJob,
  type NewJobWrite,
  pauseUpdate,
  renewalUpdate,
  type RenewalWrite,
  replaceUpdate,
  rescheduleUpdate,
  withAlertChanges,
} from './build-updates';
export {
  ALERT_KEYS,
  type AlertTarget,
  compileAlerts,
  compileAlertTarget,
  type CompiledAlerts,
  type JobAlerts,
  pickAlerts,
  type WebhookTarget,
} from './job-alerts';
export {
  type AlertChanges,
  asGiven,
  checkArgs,
  checkJobFields,
  checkOnErrorName,
  checkOptionsObject,
  type CronJobOptions,
  type IntervalJobOptions,
  type JobChanges,
  type JobOptions,
  type JobSpec,
  MAX_JOB_ID_LENGTH,
  type ModifyJobOptions,
  type OneOffJobOptions,
  parseJobChanges,
  POLICY_KEYS,
  runJobContext,
  SCHEDULE_POLICY_KEYS,
  schedulePolicies,
  scheduleSpec,
  splitOptions,
  TRIGGER_KEYS,
  workflowIdPrefix,
} from './job-options';
export {
  type CompiledJob,
  decodeJobRecord,
  encodeListedRecord,
  JOB_RECORD_MEMO_KEY,
  type JobRecord,
  type ListedJobRecord,
  listedRecord,
  MAX_RECORD_BYTES,
} from './job-record';
export { type HorizonRenewal, renewJobHorizon } from './job-renewal';
export { actualFingerprint, expectedFingerprint, formatMs, triggerFromSpec } from './job-spec-match';
export { type JobState, readJobState } from './job-state';
export {
  APPLIED_MEMO_KEY,
  type AppliedMark,
  type JobMemo,
  ourJobMemo,
  SCHEDULE_MEMO_KEY,
} from './schedule-memo';
export {
  EDIT_ATTEMPTS,
  type JobUpdateBuilder,
  type ScheduleWrite,
  updateJob,
  WRITES_MEMO_KEY,
} from './send-update';

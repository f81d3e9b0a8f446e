/*
 * Jobs (client side): PipelineScheduler and the reads of a job (describe, list, history, stats, dry run,
 * watchdog). Uses store/, runs/, dead-letters/ and the role root.
 */
export { applyPlan } from './job-apply';
export { backfillWindow, type BackfillWindow } from './job-backfill';
export {
  compileJobDefaults,
  compileNewTrigger,
  type JobDefaults,
  type JobDefaultsOptions,
  type PreparedJob,
  prepareJob,
  withDefaultDst,
} from './job-compile';
export { afterJobWrite } from './job-followups';
export { AlertEvaluatorStarter, countsChanged, ensureAlertEvaluator } from './alert-evaluator';
export { isSpentOneOff, jobDstWarnings, jobFromDescription, jobFromSummary } from './job-describe';
export { dryRun, dryRunInWindow, type DryRunJob, type DryRunWindow, readDryRunWindow } from './job-dry-run';
export { listJobRuns } from './job-history';
export { listJobs } from './job-list';
export {
  type AppliedJob,
  ApplyFailedError,
  JobSetError,
  PlanBlockedError,
  PlanStaleError,
  type StaleJob,
} from './job-plan-errors';
export {
  type ApplyResult,
  type BlockedReason,
  type CheckedJobDefinition,
  type JobDefinition,
  type JobPlan,
  type JobSet,
  type JobSetDefinition,
  type JobSetProblem,
  PLAN_ACTIONS,
  type PlanAction,
  type PlannedJob,
  type PlanOptions,
  type ResolvedPipelines,
} from './job-plan-types';
export { planEntries, type PlanEntry, planJobs, readKey } from './job-plan';
export {
  findJobDisagreements,
  type JobDisagreement,
  type JobDisagreementKind,
  type JobRepairOptions,
  repairJobDisagreement,
} from './job-repair';
export { defineJobs, isJobSet, prepareJobSet, toJobSet } from './job-set';
export { computeStats } from './job-stats';
export {
  type ForeignJob,
  type JobCounters,
  type JobDescription,
  type JobFilter,
  type JobHistoryOptions,
  type JobListing,
  type JobStats,
  type JobSummary,
  type RecentRun,
  type ScheduledJob,
  type ScheduledJobDescription,
  type ScheduledJobSummary,
} from './job-types';
export {
  canonicalJson,
  desiredView,
  diffViews,
  type FieldChange,
  type JobView,
  observedView,
  recordedView,
  type ShownView,
  showTrigger,
  VIEW_FIELDS,
  type ViewField,
} from './job-view';
export {
  type CronJobOptions,
  type IntervalJobOptions,
  type JobOptions,
  type ModifyJobOptions,
  type OneOffJobOptions,
  PipelineScheduler,
  type PipelineSchedulerOptions,
} from './pipeline-scheduler';

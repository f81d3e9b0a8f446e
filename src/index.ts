/**
 * temporal-flow: durable pipelines and schedules on Temporal (client side).
 *
 * ```ts
 * import { Client, Connection } from '@temporalio/client';
 * import { pipeline, PipelineScheduler } from 'temporal-flow';
 *
 * const client = new Client({ connection: await Connection.connect({ address: 'localhost:7233' }) });
 * const etl = pipeline('nightly-etl', { timeout: '1h' }).step('extract').step('load');
 * const scheduler = new PipelineScheduler(client, { taskQueue: 'pipelines' });
 * await scheduler.schedule(etl, { cron: '0 2 * * *', timezone: 'Europe/Paris', jobId: 'etl-nightly' });
 * ```
 */
export { TemporalFlowError, InvalidArgumentError, type InvalidArgumentErrorClass } from './errors';
export {
  parseDuration,
  MAX_DURATION_MS,
  type DurationInput,
  type ParseDurationOptions,
} from './parse/duration';
export { parseInstant } from './parse/instant';
export { parseRate, type RateInput } from './parse/rate';
export { readEnv, connectionOptions, payloadCodecFromEnv, InvalidConfigError } from './config';
export type { TflowEnv, TemporalConnectionOptions } from './config';
export {
  pipeline,
  Pipeline,
  toPipelineSpec,
  parsePipelineSpec,
  PipelineSpecError,
  LocalStepOptionError,
  UnknownStepError,
  PIPELINE_SPEC_VERSION,
  DEFAULT_MAP_CONCURRENCY,
  WORKFLOW_ID_PLACEHOLDERS,
} from './pipeline';
export type {
  PipelineConcurrency,
  PipelineLike,
  PipelineOptions,
  PipelineSpec,
  RetryOptions,
  StepOptions,
  StepSpec,
  BranchStep,
  MapOptions,
  ParallelOptions,
  NodeSpec,
  ParallelSpec,
  MapSpec,
  SleepSpec,
  WaitForSpec,
  ChildPipelineSpec,
  ChainSpec,
  ChildPipelineOptions,
  ThenOptions,
  WaitForOptions,
  WorkflowIdPlaceholder,
} from './pipeline';
export {
  validateCron,
  validateTimezone,
  InvalidTriggerError,
  InvalidPolicyError,
  RunAtInPastError,
  UnknownHolidaysError,
  InvalidWindowError,
  previewTrigger,
  triggerInWords,
} from './schedule';
export type {
  CronTrigger,
  CalendarTrigger,
  IntervalTrigger,
  OneOffTrigger,
  Trigger,
  JobPolicies,
  CalendarFields,
  CalendarRange,
  CalendarValue,
  DstWarning,
  DstPolicy,
  PreviewFireTime,
  PreviewExcludedDate,
  PreviewOptions,
  TriggerPreview,
  Exclusion,
  Exclusions,
  DryRunAssumptions,
  DryRunDecision,
  DryRunOccurrence,
  DryRunOptions,
  DryRunSkipReason,
  JobDryRun,
  TimeSpan,
} from './schedule';
export { dryRun, type DryRunJob } from './client/job-dry-run';
export { PipelineClient, RunAlreadyExistsError } from './client/pipeline-client';
export { RunSignalError } from './client/run-signal';
export type {
  PipelineClientOptions,
  PipelineRunHandle,
  StartPipelineOptions,
  RedriveOptions,
} from './client/pipeline-client';
export { RedriveError, DeadLetterNotFoundError } from './client/dead-letters';
export type { DeadLetter, ListDeadLettersOptions } from './client/dead-letters';
export type { RunDescription, RunStep } from './client/run-describe';
export { RUN_STATUSES } from './client/run-list';
export type { RunFilter } from './client/run-list';
export { PipelineScheduler } from './client/pipeline-scheduler';
export { jobDstWarnings } from './client/job-describe';
export type { JobAlerts, AlertTarget, WebhookTarget } from './client/job-alerts';
export type { JobAlertEvent, AlertKind } from './workflows/alert-types';
export type {
  PipelineSchedulerOptions,
  JobOptions,
  CronJobOptions,
  IntervalJobOptions,
  OneOffJobOptions,
  ModifyJobOptions,
} from './client/pipeline-scheduler';
export type {
  JobSummary,
  JobDescription,
  ScheduledJobSummary,
  ScheduledJobDescription,
  ForeignJob,
  ScheduledJob,
  JobListing,
  JobFilter,
  JobHistoryOptions,
  JobStats,
  JobCounters,
  RecentRun,
} from './client/job-types';
export type { JobRun, JobRunStatus } from './client/run-types';
export {
  JobAlreadyExistsError,
  JobConflictError,
  JobNotFoundError,
  ForeignScheduleError,
  SetupRequiredError,
  ServerUnreachableError,
  CredentialsRejectedError,
  RunNotFoundError,
} from './client/errors';
export type { WriteError } from './client/errors';
export { findJobDisagreements, repairJobDisagreement } from './client/job-repair';
export type { JobDisagreement, JobDisagreementKind, JobRepairOptions } from './client/job-repair';
export { connectToTemporal } from './client/connect';
export {
  setupNamespace,
  runDoctor,
  InvalidRetentionError,
  NamespaceNotFoundError,
  SearchAttributeTypeError,
  SetupNotPermittedError,
} from './setup';
export type {
  SetupNamespaceOptions,
  SetupReport,
  SearchAttributeStatus,
  DoctorOptions,
  DoctorReport,
  DoctorCheck,
  CheckId,
  CheckStatus,
} from './setup';
export { PIPELINE_WORKFLOW_TYPE, PROGRESS_QUERY, CHAINED_FROM_MEMO } from './workflows/run-types';
export { DEAD_LETTER_WORKFLOW_TYPE, deadLetterWorkflowId } from './workflows/dead-letter-defs';
export type { DeadLetterEntry, DeadLetterResolution } from './workflows/dead-letter-defs';
export {
  PIPELINE_FAILED,
  PIPELINE_INPUT_INVALID,
  MAP_INPUT_NOT_ARRAY,
  WAIT_TIMED_OUT,
  ATTEMPT_MARKER_TYPE,
} from './workflows/failure-types';
export type {
  JobErrorEvent,
  PipelineFailureDetails,
  PipelineProgress,
  PipelineRunInput,
  PipelineRunResult,
  CompensationOutcome,
  RedriveContext,
  RunConcurrency,
  StepRecord,
  ChainContext,
  ChainedRun,
  ChildRunProgress,
  WaitingStep,
} from './workflows/run-types';
export {
  AesGcmPayloadCodec,
  codecDataConverter,
  staticKeyProvider,
  parseCodecKeys,
  serveCodec,
  CodecKeyError,
  PayloadDecryptionError,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA_KEY,
  CODEC_KEY_BYTES,
} from './codec';
export type {
  AesGcmCodecOptions,
  CodecKeyProvider,
  CodecServer,
  CodecServerOptions,
  PayloadDecryptionReason,
} from './codec';

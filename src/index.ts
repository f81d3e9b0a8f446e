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

// --- Errors and the readers of durations, instants and rates
export { TemporalFlowError, InvalidArgumentError, type InvalidArgumentErrorClass } from './errors';
export {
  parseDuration,
  MAX_DURATION_MS,
  type DurationInput,
  type ParseDurationOptions,
} from './parse/duration';
export { parseInstant } from './parse/instant';
export { parseRate, type RateInput } from './parse/rate';

// --- Environment and configuration
export { readEnv, connectionOptions, payloadCodecFromEnv, InvalidConfigError } from './config';
export type { TflowEnv, TemporalConnectionOptions } from './config';

// --- Pipelines: the builder and its spec
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
  WHEN_FULL,
  WORKFLOW_ID_PLACEHOLDERS,
  remoteTaskQueuesOf,
} from './pipeline';
export type {
  RemoteSteps,
  PipelineConcurrency,
  WhenFull,
  BatchOptions,
  DebounceOptions,
  DedupeOptions,
  FlowControlSpec,
  FlowKey,
  ThrottleOptions,
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

// --- Triggers, policies, previews and dry runs (pure, no server)
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

// --- Runs: PipelineClient, run listings and descriptions, signals
export { PipelineClient, RunAlreadyExistsError } from './client/runs';
export { RunSignalError } from './client/runs';
export type {
  PipelineClientOptions,
  PipelineRunHandle,
  StartPipelineOptions,
  RedriveOptions,
} from './client/runs';
export type { RunDescription, RunStep } from './client/runs';
export { RUN_STATUSES } from './client/runs';
export type { RunFilter } from './client/runs';
export type { JobRun, JobRunStatus } from './client/runs';
export type { SendEventOptions, SendReceipt } from './client/runs';
export { listFlowControls } from './client/runs';
export type {
  FlowControlListing,
  FlowControlSummary,
  FlowListOptions,
  UnreadableFlowControl,
} from './client/runs';

// --- Dead letters
export { RedriveError, DeadLetterNotFoundError } from './client/dead-letters';
export type { DeadLetter, ListDeadLettersOptions } from './client/dead-letters';

// --- Jobs: PipelineScheduler, job listings, stats, dry runs and alerts
export { dryRun, type DryRunJob } from './client/jobs';
export { PipelineScheduler } from './client/jobs';
export { jobDstWarnings } from './client/jobs';
export { defineJobs } from './client/jobs';
export { PLAN_ACTIONS } from './client/jobs';
export type {
  JobDefinition,
  JobSetDefinition,
  JobSet,
  JobSetProblem,
  PlanOptions,
  PlanAction,
  PlannedJob,
  JobPlan,
  BlockedReason,
  ApplyResult,
} from './client/jobs';
export type { FieldChange } from './client/jobs';
export {
  JobSetError,
  PlanStaleError,
  PlanBlockedError,
  ApplyFailedError,
  type StaleJob,
  type AppliedJob,
} from './client/jobs';
export type { JobAlerts, AlertTarget, WebhookTarget } from './client/jobs/store';
export type { JobAlertEvent, AlertKind } from './workflows/alert-types';
export type {
  PipelineSchedulerOptions,
  JobOptions,
  CronJobOptions,
  IntervalJobOptions,
  OneOffJobOptions,
  ModifyJobOptions,
} from './client/jobs';
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
} from './client/jobs';
export { findJobDisagreements, repairJobDisagreement } from './client/jobs';
export type { JobDisagreement, JobDisagreementKind, JobRepairOptions } from './client/jobs';

// --- Connection and the errors of the client
export {
  JobAlreadyExistsError,
  JobConflictError,
  JobNotFoundError,
  JobAlertsUnreadableError,
  AlertEvaluatorStartError,
  JobInputMissingError,
  ForeignScheduleError,
  SetupRequiredError,
  ServerUnreachableError,
  CredentialsRejectedError,
  RunNotFoundError,
} from './client/errors';
export type { WriteError } from './client/errors';
export { connectToTemporal } from './client/connect';

// --- Namespace setup and doctor
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

// --- Payload encryption
export {
  AesGcmPayloadCodec,
  codecDataConverter,
  staticKeyProvider,
  parseCodecKeys,
  serveCodec,
  CodecKeyError,
  CodecServerOptionsError,
  PayloadDecryptionError,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA_KEY,
  CODEC_KEY_BYTES,
} from './codec';
export type {
  AesGcmCodecOptions,
  CodecKeyProvider,
  CodecRequest,
  CodecServer,
  CodecServerOptions,
  PayloadDecryptionReason,
} from './codec';

// --- Wire names and shapes: workflow types, queries, memo keys and failure types persisted in histories (never change their values)
export { PIPELINE_WORKFLOW_TYPE, PROGRESS_QUERY, CHAINED_FROM_MEMO } from './workflows/run-types';
export { DEAD_LETTER_WORKFLOW_TYPE, deadLetterWorkflowId } from './workflows/dead-letters/dead-letter-defs';
export type { DeadLetterEntry, DeadLetterResolution } from './workflows/dead-letters/dead-letter-defs';
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

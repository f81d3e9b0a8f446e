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
} from './pipeline';
export type {
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
} from './pipeline';
export {
  validateCron,
  validateTimezone,
  InvalidTriggerError,
  InvalidPolicyError,
  RunAtInPastError,
  previewTrigger,
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
  PreviewFireTime,
  PreviewOptions,
  TriggerPreview,
} from './schedule';
export { PipelineClient } from './client/pipeline-client';
export type {
  PipelineClientOptions,
  PipelineRunHandle,
  StartPipelineOptions,
  RedriveOptions,
} from './client/pipeline-client';
export { RedriveError } from './client/dead-letters';
export type { DeadLetter, ListDeadLettersOptions } from './client/dead-letters';
export { PipelineScheduler } from './client/pipeline-scheduler';
export { jobDstWarnings } from './client/job-describe';
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
  JobRun,
  JobRunStatus,
  JobHistoryOptions,
  JobStats,
  JobCounters,
  RecentRun,
} from './client/job-types';
export {
  JobAlreadyExistsError,
  JobConflictError,
  JobNotFoundError,
  ForeignScheduleError,
  SetupRequiredError,
  ServerUnreachableError,
  CredentialsRejectedError,
} from './client/errors';
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
export { PIPELINE_WORKFLOW_TYPE, PROGRESS_QUERY } from './workflows/run-types';
export {
  PIPELINE_FAILED,
  PIPELINE_INPUT_INVALID,
  MAP_INPUT_NOT_ARRAY,
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
  StepRecord,
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

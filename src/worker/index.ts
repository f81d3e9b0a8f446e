/**
 * Worker side of temporal-flow.
 *
 * ```ts
 * import { NativeConnection } from '@temporalio/worker';
 * import { createWorker } from 'temporal-flow/worker';
 * const connection = await NativeConnection.connect({ address: 'localhost:7233' });
 * const worker = await createWorker({ connection, taskQueue: 'pipelines', steps: { extract, load } });
 * await worker.run();
 * ```
 */
export {
  createWorker,
  PRELOADED_WORKFLOW_MODULES,
  TRACING_WORKFLOW_INTERCEPTOR_MODULES,
  WORKFLOWS_PATH,
  WORKFLOW_INTERCEPTOR_MODULES,
} from './create-worker';
export {
  ALERT_WORKFLOWS_PATH,
  buildAlertWorkflowBundle,
  buildWorkflowBundle,
  PREBUILT_ALERT_WORKFLOW_BUNDLE_PATH,
  PREBUILT_TRACED_WORKFLOW_BUNDLE_PATH,
  PREBUILT_WORKFLOW_BUNDLE_PATH,
} from './workflow-bundle';
export { TRACE_ATTRIBUTES, type TracingOption, type TracingOptions } from '../client/tracing';
export { stepIdempotencyKey, NotInStepError } from './step-idempotency';
export type { CreateWorkerOptions, Steps } from './create-worker';
export type { RunFinishedEvent, RunStartedEvent, RunEventBase } from '../workflows/sinks';
export type { StepRetriedEvent } from './step-retries';
export { WorkerMetrics } from './metrics';
export type { JobLister, JobMetricsOptions } from './job-metrics';
export type { FlowLister, FlowMetricsOptions } from './flow-metrics';
export { JsonLinesLogger } from './json-logger';
export { logEvent, TFLOW_EVENTS } from './run-events';
export type { EventFields, TflowEvent } from './run-events';
export { AlertMetrics } from './alert-metrics';
export { createWatchdogWorker } from './watchdog-worker';
export type { CreateWatchdogWorkerOptions } from './watchdog-worker';
export type {
  AlertCheck,
  AlertDelivery,
  AlertEvaluation,
  AlertHandler,
} from '../activities/alerts/alert-activities';
export type { JobAlertEvent, AlertKind } from '../workflows/alert-types';
export { serveMetrics } from './metrics-server';
export type { MetricsServer, MetricsServerOptions } from './metrics-server';
/**
 * Built-in activities of the scheduler (per-job semaphore, one-off clean-up), for workers not made by
 * createWorker(); such workers also need one on {@link SEMAPHORE_TASK_QUEUE} (the semaphore workflow and
 * these activities).
 */
export { schedulerActivities } from '../activities/scheduler-activities';
export { SEMAPHORE_TASK_QUEUE } from '../workflows/semaphore/semaphore-defs';
export type { JobErrorEvent } from '../workflows/run-types';
export { AesGcmPayloadCodec, codecDataConverter, staticKeyProvider } from '../codec';
export type { AesGcmCodecOptions, CodecKeyProvider } from '../codec';

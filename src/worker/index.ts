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
export { createWorker, WORKFLOWS_PATH, WORKFLOW_INTERCEPTOR_MODULES } from './create-worker';
export { PREBUILT_WORKFLOW_BUNDLE_PATH } from './workflow-bundle';
export { stepIdempotencyKey, NotInStepError } from './step-idempotency';
export type { CreateWorkerOptions, Steps } from './create-worker';
export type { RunFinishedEvent } from '../workflows/sinks';
export { WorkerMetrics } from './metrics';
export { serveMetrics } from './metrics-server';
export type { MetricsServer, MetricsServerOptions } from './metrics-server';
/** Built-in activities of the scheduler (per-job semaphore, one-off clean-up), for workers not made by createWorker(). */
export { schedulerActivities } from '../activities/scheduler-activities';
export type { JobErrorEvent } from '../workflows/run-types';
export { AesGcmPayloadCodec, codecDataConverter, staticKeyProvider } from '../codec';
export type { AesGcmCodecOptions, CodecKeyProvider } from '../codec';

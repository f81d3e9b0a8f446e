/*
 * A worker process on its own, for a real cluster (docker-compose.yml runs it): connects to
 * TEMPORAL_ADDRESS, serves the example steps on TFLOW_TASK_QUEUE until SIGTERM or Ctrl-C, with
 * /metrics and /healthz on TFLOW_METRICS_PORT when set, on TFLOW_METRICS_HOST (default 127.0.0.1: this
 * machine only; 0.0.0.0 for a scraper elsewhere) (plus the job metrics, read from the server when
 * scraped), payloads encrypted with TFLOW_CODEC_KEYS when set. Logs are JSON lines on standard output at
 * TFLOW_LOG_LEVEL: the SDK's own and one per run started, finished, skipped and step retried. Many of
 * them may run against one cluster: Temporal starts each scheduled run once. It also runs an alert worker
 * (createWatchdogWorker: the shared alert evaluator of the jobs' dead-man switches and counted misses, on
 * the tflow-watchdog task queue), with the alert metrics on the same /metrics.
 */
import { existsSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Runtime } from '@temporalio/worker';
import {
  codecDataConverter,
  connectionOptions,
  payloadCodecFromEnv,
  PipelineScheduler,
  readEnv,
} from 'temporal-flow';
import {
  AlertMetrics,
  createWatchdogWorker,
  createWorker,
  JsonLinesLogger,
  PREBUILT_WORKFLOW_BUNDLE_PATH,
  serveMetrics,
  WorkerMetrics,
  WORKFLOW_INTERCEPTOR_MODULES,
  WORKFLOWS_PATH,
  type MetricsServer,
} from 'temporal-flow/worker';
import { steps } from './steps';

async function main(): Promise<void> {
  const env = readEnv();
  const address = env.temporalAddress ?? 'localhost:7233';
  // The SDK's own metrics (task latencies, slots, polls) on a loopback port, appended to ours.
  const sdkPort = env.metricsPort !== undefined ? env.metricsPort + 1 : undefined;
  const logger = new JsonLinesLogger(env.logLevel);
  Runtime.install({
    logger,
    telemetryOptions: {
      // The SDK's native (Core) lines too go through `logger`, not straight to stderr.
      logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } },
      ...(sdkPort !== undefined ? { metrics: { prometheus: { bindAddress: `127.0.0.1:${sdkPort}` } } } : {}),
    },
  });
  const codec = payloadCodecFromEnv(env); // TFLOW_CODEC_KEYS: payloads encrypted when set
  const metrics = new WorkerMetrics();
  const alertMetrics = new AlertMetrics(metrics.registry);
  const connection = await NativeConnection.connect(connectionOptions(env, address));
  // Run from the build, both workers take the bundle `npm run build` ships (their default): no webpack in
  // this process, which saves seconds of start-up and ~90 MB of RSS. From source (tsx), bundle once for both.
  const bundled = existsSync(PREBUILT_WORKFLOW_BUNDLE_PATH)
    ? {}
    : {
        workflowBundle: await bundleWorkflowCode({
          workflowsPath: WORKFLOWS_PATH,
          workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
        }),
      };
  const worker = await createWorker({
    ...bundled,
    connection,
    namespace: env.namespace,
    taskQueue: env.taskQueue,
    steps,
    ...(codec ? { codec } : {}),
    ...metrics.handlers,
    onAlertDelivery: alertMetrics.recordDelivery,
  });
  const watchdog = await createWatchdogWorker({
    ...bundled,
    connection,
    namespace: env.namespace,
    ...(codec ? { codec } : {}),
    onAlertDelivery: alertMetrics.recordDelivery,
    onAlertEvaluation: alertMetrics.recordEvaluation,
    onAlertCheck: alertMetrics.recordCheck,
  });
  let server: MetricsServer | undefined;
  let clientConnection: Connection | undefined;
  if (env.metricsPort !== undefined) {
    // Jobs by state, next run in, runs Temporal missed: listed when Prometheus scrapes, once a minute at most.
    clientConnection = await Connection.connect(connectionOptions(env, address));
    const client = new Client({
      connection: clientConnection,
      namespace: env.namespace,
      ...(codec ? { dataConverter: codecDataConverter(codec) } : {}),
    });
    metrics.watchJobs(new PipelineScheduler(client, { taskQueue: env.taskQueue }));
    server = await serveMetrics({
      metrics,
      worker,
      port: env.metricsPort,
      host: env.metricsHost,
      ...(sdkPort !== undefined ? { sdkMetricsUrl: `http://127.0.0.1:${sdkPort}/metrics` } : {}),
    });
  }
  logger.info('worker started', {
    address,
    namespace: env.namespace,
    taskQueue: env.taskQueue,
    metrics: server?.url,
  });
  // The SDK's Worker shuts down gracefully on SIGINT/SIGTERM by default.
  await Promise.all([worker.run(), watchdog.run()]);
  await server?.close();
  await clientConnection?.close();
  await connection.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

/*
 * A worker process on its own, for a real cluster (docker-compose.yml runs it): connects to
 * TEMPORAL_ADDRESS, serves the example steps on TFLOW_TASK_QUEUE until SIGTERM or Ctrl-C, with
 * /metrics and /healthz on TFLOW_METRICS_PORT when set, payloads encrypted with TFLOW_CODEC_KEYS when set. Many of them may run against one cluster:
 * Temporal starts each scheduled run once. It also runs a watchdog worker (the jobs' dead-man switches, on
 * the tflow-watchdog task queue), with the alert metrics on the same /metrics.
 */
import { bundleWorkflowCode, NativeConnection, Runtime } from '@temporalio/worker';
import { connectionOptions, payloadCodecFromEnv, readEnv } from 'temporal-flow';
import {
  AlertMetrics,
  createWatchdogWorker,
  createWorker,
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
  if (sdkPort !== undefined) {
    Runtime.install({
      telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${sdkPort}` } } },
    });
  }
  const codec = payloadCodecFromEnv(env); // TFLOW_CODEC_KEYS: payloads encrypted when set
  const metrics = new WorkerMetrics();
  const alertMetrics = new AlertMetrics(metrics.registry);
  const connection = await NativeConnection.connect(connectionOptions(env, address));
  // One workflow bundle for both workers (bundling takes seconds).
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
  });
  const worker = await createWorker({
    workflowBundle,
    connection,
    namespace: env.namespace,
    taskQueue: env.taskQueue,
    steps,
    ...(codec ? { codec } : {}),
    onRunFinished: (e) => {
      metrics.recordRun(e);
      console.log(JSON.stringify({ msg: 'run finished', ...e }));
    },
    onAlertDelivery: alertMetrics.recordDelivery,
  });
  const watchdog = await createWatchdogWorker({
    workflowBundle,
    connection,
    namespace: env.namespace,
    ...(codec ? { codec } : {}),
    onAlertDelivery: alertMetrics.recordDelivery,
  });
  let server: MetricsServer | undefined;
  if (env.metricsPort !== undefined) {
    server = await serveMetrics({
      metrics,
      worker,
      port: env.metricsPort,
      ...(sdkPort !== undefined ? { sdkMetricsUrl: `http://127.0.0.1:${sdkPort}/metrics` } : {}),
    });
  }
  console.log(
    JSON.stringify({
      msg: 'worker started',
      address,
      namespace: env.namespace,
      taskQueue: env.taskQueue,
      metrics: server?.url,
    }),
  );
  // The SDK's Worker shuts down gracefully on SIGINT/SIGTERM by default.
  await Promise.all([worker.run(), watchdog.run()]);
  await server?.close();
  await connection.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

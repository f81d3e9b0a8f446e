/*
 * `npm start`: the main job on the embedded default. Starts the Temporal dev server (SQLite under
 * .tflow/, Web UI on), a worker with the example steps, the alert worker (createWatchdogWorker: it
 * starts the shared alert evaluator of the jobs' dead-man switches, docs/operations.md#on-call), and the example jobs of examples/jobs.ts (through plan and
 * apply, as a deploy does); prints one line per finished run. Ctrl-C stops the worker, then the server. Set TEMPORAL_ADDRESS to use an existing server.
 */
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import {
  PipelineScheduler,
  codecDataConverter,
  connectToTemporal,
  connectionOptions,
  jobDstWarnings,
  payloadCodecFromEnv,
  readEnv,
} from 'temporal-flow';
import { DevServer } from 'temporal-flow/devserver';
import {
  createWatchdogWorker,
  createWorker,
  WORKFLOW_INTERCEPTOR_MODULES,
  WORKFLOWS_PATH,
  type RunFinishedEvent,
} from 'temporal-flow/worker';
import exampleJobs from './jobs';
import { EXAMPLE_JOBS } from './schedules';
import { steps } from './steps';

function formatRun(e: RunFinishedEvent): string {
  const what = e.status === 'failed' ? `failed at step ${e.failedStep ?? '?'}` : e.status;
  const skip = e.skipReason ? ` (${e.skipReason})` : '';
  return `run ${e.pipeline}${e.jobId ? ` job=${e.jobId}` : ''}: ${what}${skip} in ${e.durationMs} ms [${e.workflowId}]`;
}

async function main(): Promise<void> {
  const env = readEnv();
  Runtime.install({ logger: new DefaultLogger('WARN') });

  let server: DevServer | undefined;
  let address = env.temporalAddress;
  if (!address) {
    console.log('Starting the Temporal dev server...');
    server = await DevServer.start({
      home: env.home,
      cliPath: env.temporalCli,
      searchPath: env.path,
      namespace: env.namespace,
      retention: env.retention,
      scheduleStartRps: env.scheduleStartRps,
    });
    address = server.address;
    console.log(
      `Temporal server: ${address} (store ${server.dbFile ?? 'in memory'}, CLI ${server.cli.path})`,
    );
    console.log(`Temporal UI:     ${server.uiUrl ?? '(disabled)'}`);
  } else {
    console.log(`Temporal server: ${address} (TEMPORAL_ADDRESS)`);
  }

  // The embedded server is plain; the profile's API key and TLS settings (TEMPORAL_API_KEY, TEMPORAL_TLS_*) apply to a server given by TEMPORAL_ADDRESS.
  const connect = server ? { address } : connectionOptions(env, address);
  // The client first: an unreachable server or refused credentials become one line saying what to set.
  const connection = await connectToTemporal(connect);
  const nativeConnection = await NativeConnection.connect(connect);
  const codec = payloadCodecFromEnv(env); // TFLOW_CODEC_KEYS: payloads encrypted when set
  const client = new Client({
    connection,
    namespace: env.namespace,
    ...(codec ? { dataConverter: codecDataConverter(codec) } : {}),
  });
  // One workflow bundle for both workers (bundling takes seconds).
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
    logger: new DefaultLogger('WARN'),
  });
  const worker = await createWorker({
    ...(codec ? { codec } : {}),
    connection: nativeConnection,
    namespace: env.namespace,
    taskQueue: env.taskQueue,
    steps,
    workflowBundle,
    onRunFinished: (e) => console.log(formatRun(e)),
  });
  // The alert worker, on the tflow-watchdog task queue: it starts the queue's shared alert evaluator,
  // which raises the jobs' dead-man (expectSuccessWithin) and counted-miss alerts.
  const watchdog = await createWatchdogWorker({
    ...(codec ? { codec } : {}),
    connection: nativeConnection,
    namespace: env.namespace,
    workflowBundle,
  });
  const running = Promise.all([worker.run(), watchdog.run()]);
  console.log(`Worker:          task queue "${env.taskQueue}", steps ${Object.keys(steps).join(', ')}`);

  const scheduler = new PipelineScheduler(client, { taskQueue: env.taskQueue, steps });
  // The example jobs as a deploy makes them: plan the file, apply it (adopting the jobs an older
  // `npm start` created before they were a jobs file).
  const applied = await scheduler.apply(await scheduler.plan(exampleJobs, { adopt: true }));
  const did = [...applied.created, ...applied.updated];
  console.log(`Jobs (set "${applied.set}"): ${did.length > 0 ? `applied ${did.join(', ')}` : 'no changes'}`);
  for (const jobId of Object.values(EXAMPLE_JOBS)) {
    const job = await scheduler.getJob(jobId);
    console.log(`Job ${jobId}: next run ${job.nextRunTimes[0]?.toISOString() ?? 'none'}`);
    // What DST does to the job in the coming year (nothing for intervals, which count UTC seconds).
    for (const w of jobDstWarnings(job)) console.log(`  DST: ${w.message}`);
  }
  // The health check's first interval may be up to 30 s away: run it once now so the first line shows at once.
  await scheduler.triggerJob(EXAMPLE_JOBS.healthCheck);
  console.log('Press Ctrl-C to stop.');

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    console.log('Stopping worker...');
    worker.shutdown();
    watchdog.shutdown();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await running;
  } finally {
    await nativeConnection.close();
    await connection.close();
    if (server) {
      console.log('Stopping Temporal server...');
      await server.stop();
    }
    console.log('Stopped.');
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

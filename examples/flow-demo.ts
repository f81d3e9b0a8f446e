/*
 * `npx tsx examples/flow-demo.ts`: runs the pipelines of flow-pipelines.ts once each, against
 * TEMPORAL_ADDRESS or a throw-away dev server, with a worker in this process; approves the report itself.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { PipelineClient, connectToTemporal, readEnv } from 'temporal-flow';
import { DevServer } from 'temporal-flow/devserver';
import { createWorker } from 'temporal-flow/worker';
import { approvedReport, loadViaChild, settledHealth, summaryThenLoad } from './flow-pipelines';
import { steps } from './steps';

/** Runs each example and returns one line per example. */
export async function runFlowDemo(pipelines: PipelineClient): Promise<string[]> {
  const lines: string[] = [];
  const child = await pipelines.start(loadViaChild, ['eu'], { workflowId: '{pipeline}-{time}-{uuid}' });
  lines.push(
    `child pipeline: loaded ${String((await child.result()).output)} (child run ${child.workflowId}/summary)`,
  );

  const chain = await (await pipelines.start(summaryThenLoad, ['us'])).result();
  const next = chain.chained![0]!;
  const loaded = await pipelines.client.workflow.getHandle(next.workflowId).result();
  lines.push(`chain: ${next.pipeline} ran as ${next.workflowId} and loaded ${String(loaded.output)}`);

  const health = await (await pipelines.start(settledHealth)).result();
  lines.push(`sleep: ${health.steps.map((s) => `${s.id} ${s.durationMs} ms`).join(', ')}`);

  const report = await pipelines.start(approvedReport, ['eu']);
  // Wait until the run asks for approval, as a reviewer would see it in `progress`.
  while (!(await pipelines.progress(report.workflowId)).waiting?.some((w) => w.step === 'review')) {
    await new Promise((r) => setTimeout(r, 200));
  }
  await pipelines.signal(report.workflowId, 'approve', { by: 'ann', region: 'eu' });
  lines.push(`waitFor: ${String((await report.result()).output)}`);
  return lines;
}

async function main(): Promise<void> {
  const env = readEnv();
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const server = env.temporalAddress ? undefined : await DevServer.startEphemeral(env);
  const address = env.temporalAddress ?? server!.address;
  // Connected first: an unreachable server becomes one line saying what to set.
  const connection = await connectToTemporal({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  const taskQueue = `flow-demo-${randomUUID()}`;
  try {
    const worker = await createWorker({
      connection: nativeConnection,
      namespace: env.namespace,
      taskQueue,
      steps,
    });
    // On the worker's NativeConnection, the runs this process starts start eagerly: the server hands the
    // first workflow task to this worker in the start response (docs/pipelines.md, "eager start").
    const client = new Client({ connection: nativeConnection, namespace: env.namespace });
    const lines = await worker.runUntil(runFlowDemo(new PipelineClient(client, { taskQueue, steps })));
    for (const line of lines) console.log(line);
  } finally {
    await nativeConnection.close();
    await connection.close();
    await server?.stop();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}

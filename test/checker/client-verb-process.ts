/*
 * One temporal-flow verb in a client process of its own, so that the checker can SIGKILL the client in
 * the middle of it (a verb is several calls: describe, update, describe, the watchdog's signal):
 *
 *   node --import tsx test/checker/client-verb-process.ts <address> <namespace> <taskQueue> <watchdogQueue> <verb> <jobId> [<ms> <graceS|null>]
 *
 * Prints `ready` once connected, runs the verb when it reads `go` on stdin, prints `done` when it returns.
 */
import { Client, Connection } from '@temporalio/client';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { STEP_NAMES } from './pipelines';

const [address, namespace, taskQueue, watchdogTaskQueue, verb, jobId, ms, graceS] = process.argv.slice(2);
if (!address || !namespace || !taskQueue || !watchdogTaskQueue || !verb || !jobId)
  throw new Error(
    'usage: client-verb-process.ts <address> <namespace> <taskQueue> <watchdogQueue> <verb> <jobId> [<ms> <graceS>]',
  );

async function main(): Promise<void> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace });
  const scheduler = new PipelineScheduler(client, {
    taskQueue: taskQueue!,
    steps: STEP_NAMES,
    watchdogTaskQueue: watchdogTaskQueue!,
  });
  console.log('ready');
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  if (verb === 'pause') await scheduler.pauseJob(jobId!);
  else if (verb === 'resume') await scheduler.resumeJob(jobId!);
  else
    await scheduler.modifyJob(jobId!, {
      args: [{ ms: Number(ms) }],
      misfireGraceTime: graceS === 'null' ? undefined : `${Number(graceS)}s`,
    });
  console.log('done');
  await connection.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`client verb ${verb} ${jobId}: ${String(err)}`);
    process.exit(1);
  },
);

/*
 * Records the histories of scheduled runs, which go through the job guards (see
 * src/workflows/job-guards.ts), and of the per-job semaphore workflow:
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-scheduled.ts
 *
 * - scheduled-guards.json: a job with maxInstances 2 (a semaphore slot is taken and given back), a misfire
 *   grace, and an onError hook, whose run fails for good;
 * - scheduled-once.json: a one-off job, cleaned up by the run that used its single action;
 * - job-semaphore.json: the semaphore workflow of the first job after the run released its slot.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { readEnv } from '../../src/config';
import { DevServer } from '../../src/devserver';
import { PipelineScheduler } from '../../src/client/pipeline-scheduler';
import { pipeline } from '../../src/pipeline';
import { createWorker } from '../../src/worker/create-worker';
import { semaphoreWorkflowId, holdersQuery } from '../../src/workflows/job-semaphore-defs';
import { writeHistoryFile } from './history-file';
import { steps } from './record';

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = readEnv();
  const server = env.temporalAddress ? undefined : await DevServer.startEphemeral(env);
  const address = env.temporalAddress ?? server!.address;
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const taskQueue = `record-${randomUUID()}`;
  const worker = await createWorker({ connection: nativeConnection, taskQueue, steps });
  const scheduler = new PipelineScheduler(client, { taskQueue, steps });
  const dir = path.join(__dirname, 'histories');

  /** The one run a job started, once it has closed. */
  const closedRunOf = (jobId: string) =>
    until(`the run of ${jobId}`, async () => {
      for await (const wf of client.workflow.list({ query: `TemporalScheduledById = '${jobId}'` })) {
        if (wf.status.name !== 'RUNNING') return client.workflow.getHandle(wf.workflowId, wf.runId);
      }
      return undefined;
    });

  try {
    await worker.runUntil(async () => {
      const guarded = await scheduler.scheduleInterval(
        pipeline('scheduled-guards', { steps }).step('add', { compensate: 'undo' }).step('boom'),
        {
          jobId: 'replay-guards',
          every: '1h',
          paused: true,
          maxInstances: 2,
          misfireGraceTime: '10m',
          onError: 'notify',
          args: [1],
        },
      );
      await scheduler.triggerJob(guarded);
      const run = await closedRunOf(guarded);
      await writeHistoryFile(path.join(dir, 'scheduled-guards.json'), await run.fetchHistory());
      const semaphore = client.workflow.getHandle(semaphoreWorkflowId(guarded));
      await until('the slot to be given back', async () =>
        (await semaphore.query(holdersQuery)).length === 0 ? true : undefined,
      );
      await writeHistoryFile(path.join(dir, 'job-semaphore.json'), await semaphore.fetchHistory());
      await scheduler.removeJob(guarded);

      const once = await scheduler.scheduleAt(
        pipeline('scheduled-once', { steps }).step('add').step('double'),
        {
          jobId: 'replay-once',
          runAt: new Date(Date.now() + 3_000).toISOString(),
          args: [2],
        },
      );
      const oneOff = await closedRunOf(once);
      await writeHistoryFile(path.join(dir, 'scheduled-once.json'), await oneOff.fetchHistory());
      console.log('recorded scheduled-guards.json, job-semaphore.json, scheduled-once.json');
    });
  } finally {
    await nativeConnection.close();
    await connection.close();
    await server?.stop();
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

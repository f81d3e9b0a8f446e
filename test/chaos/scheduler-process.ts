/*
 * A PipelineScheduler in its own process, so that the job-unit chaos test can SIGKILL the client in the
 * middle of a create or a remove of a job:
 *
 *   node --import tsx test/chaos/scheduler-process.ts <address> <namespace> <taskQueue> <alertQueue> <haltAfter>
 *
 * Prints `ready` once connected, then reads one operation as a JSON line on stdin and runs it, printing
 * `call <method>` as each gRPC call is sent. Its connection carries a gRPC interceptor that lets every
 * call through until the call named `haltAfter` (e.g. `CreateSchedule`) has been answered OK by the
 * server: then it prints `halted <method>` and holds that answer and every later call, so the process
 * stays exactly there until the test kills it. The interceptor is this fixture's own (the SDK's public
 * `interceptors` option); nothing in the library knows about it.
 */
import { createInterface } from 'node:readline';
import { InterceptingCall, status as GrpcStatus, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { pipeline } from '../../src/pipeline';

/** What the test asks the process to do. */
export type SchedulerOperation =
  | { op: 'create'; jobId: string; hookUrl: string; expectSuccessWithin: string }
  | { op: 'remove'; jobId: string }
  | { op: 'replace-due'; jobId: string };

const [address, namespace, taskQueue, watchdogTaskQueue, haltAfter] = process.argv.slice(2);
if (!address || !namespace || !taskQueue || !watchdogTaskQueue || !haltAfter) {
  throw new Error('usage: scheduler-process.ts <address> <namespace> <taskQueue> <alertQueue> <haltAfter>');
}

let halted = false;
let operating = false;
const haltAfterAnswer: Interceptor = (options, nextCall) => {
  const method = options.method_definition.path.split('/').pop();
  return new InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      if (halted) return; // never sent: the process waits to be killed
      if (operating) console.log(`call ${method}`);
      next(metadata, {
        onReceiveMessage: (message, nextMessage) => nextMessage(message),
        onReceiveMetadata: (md, nextMetadata) => nextMetadata(md),
        onReceiveStatus(status, nextStatus) {
          if (operating && method === haltAfter && status.code === GrpcStatus.OK) {
            halted = true;
            console.log(`halted ${method}`);
            return; // the answer is held: the caller never learns the call landed
          }
          nextStatus(status);
        },
      });
    },
  });
};

async function run(op: SchedulerOperation, scheduler: PipelineScheduler): Promise<void> {
  const work = pipeline('unit-work', { steps: ['work'] }).step('work');
  if (op.op === 'create') {
    await scheduler.scheduleInterval(work, {
      jobId: op.jobId,
      every: '1h',
      args: [1],
      paused: true,
      expectSuccessWithin: op.expectSuccessWithin,
      onSilent: { webhook: { url: op.hookUrl } },
    });
  } else if (op.op === 'remove') {
    await scheduler.removeJob(op.jobId);
  } else {
    await scheduler.scheduleAt(work, {
      jobId: op.jobId,
      runAt: new Date(),
      args: [2],
      misfireGraceTime: '2m',
      replaceExisting: true,
    });
  }
}

async function main(): Promise<void> {
  const connection = await Connection.connect({
    address: address!,
    interceptors: [haltAfterAnswer, makeGrpcRetryInterceptor(defaultGrpcRetryOptions())],
  });
  const client = new Client({ connection, namespace: namespace! });
  const scheduler = new PipelineScheduler(client, { taskQueue: taskQueue!, watchdogTaskQueue });
  await connection.ensureConnected();
  console.log('ready');
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    operating = true;
    await run(JSON.parse(line) as SchedulerOperation, scheduler);
    console.log('done');
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

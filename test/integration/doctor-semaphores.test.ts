import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DoctorReport } from '../../src/setup/doctor-types';
import {
  SEMAPHORE_TASK_QUEUE,
  SEMAPHORE_WORKFLOW_TYPE,
  semaphoreWorkflowId,
  type SemaphoreState,
} from '../../src/workflows/semaphore/semaphore-defs';
import { createWorker } from '../../src/worker/create-worker';
import { PlainServer, runTflow } from '../helpers/plain-server';

/*
 * `tflow doctor`'s semaphores check, on a server of its own (in the suite's server, every other file's
 * workers poll tflow-semaphores): nothing polls the semaphore queue (warn), a semaphore runs there with no
 * worker to serve it (fail, exit 1, naming the semaphore, the queue and what to start), then a worker made
 * with createWorker serves it (ok); --semaphore-task-queue names another queue to expect.
 */

let server: PlainServer;
let connection: Connection;
let client: Client;
const doctor = async (...extra: string[]) => {
  const r = await runTflow([
    'doctor',
    '--address',
    server.address,
    '--task-queue',
    `doctor-${randomUUID()}`,
    '--json',
    ...extra,
  ]);
  const report = JSON.parse(r.stdout) as DoctorReport;
  return { code: r.code, check: report.checks.find((c) => c.id === 'semaphores')! };
};

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  server = await PlainServer.start();
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection });
});
afterAll(async () => {
  await connection?.close();
  await server?.stop();
});

describe('tflow doctor: a worker on the semaphore task queue', () => {
  it('warns, then fails naming a semaphore nobody serves, then is ok once a createWorker worker polls', async () => {
    const none = await doctor();
    expect(none.check).toMatchObject({ status: 'warn' });
    expect(none.check.summary).toContain(
      `no worker polled the semaphore task queue "${SEMAPHORE_TASK_QUEUE}" in the last 2 minutes, and no semaphore runs`,
    );
    expect(none.check.fix).toContain('start a worker with createWorker');
    expect(none.check.fix).toContain('--semaphore-task-queue');

    // A semaphore (of a job with maxInstances > 1) running on the queue, as a run's first ask starts one.
    const id = semaphoreWorkflowId(`doctor-job-${randomUUID()}`);
    await client.workflow.start(SEMAPHORE_WORKFLOW_TYPE, {
      workflowId: id,
      taskQueue: SEMAPHORE_TASK_QUEUE,
      args: [{ holders: [{ workflowId: 'a-run', runId: 'its-run-id' }] } satisfies SemaphoreState],
    });
    const unserved = await doctor();
    expect(unserved.code).toBe(1);
    expect(unserved.check.status).toBe('fail');
    expect(unserved.check.summary).toContain(`1 semaphore on task queue "${SEMAPHORE_TASK_QUEUE}" (${id})`);
    expect(unserved.check.summary).toContain('wait for a slot until one does');
    expect(unserved.check.fix).toContain('start a worker with createWorker');

    const native = await NativeConnection.connect({ address: server.address });
    let worker: Worker | undefined;
    let running: Promise<void> | undefined;
    try {
      worker = await createWorker({
        connection: native,
        taskQueue: `doctor-worker-${randomUUID()}`,
        steps: {},
        workflowBundle: { codePath: inject('workflowBundlePath') },
      });
      running = worker.run();
      const served = await doctor();
      expect(served.check.status).toBe('ok');
      expect(served.check.summary).toMatch(
        new RegExp(
          `^1 worker polling the semaphore task queue "${SEMAPHORE_TASK_QUEUE}"; 1 semaphore running`,
        ),
      );
      // Workers that set another semaphore queue: doctor expects that one, and still checks the running one's.
      const other = `sem-${randomUUID()}`;
      const elsewhere = await doctor('--semaphore-task-queue', other);
      expect(elsewhere.check.status).toBe('warn');
      expect(elsewhere.check.summary).toContain(`the semaphore task queue "${other}"`);
      expect(elsewhere.check.fix).toContain(`createWorker({ semaphoreTaskQueue: '${other}', ... })`);
    } finally {
      await client.workflow.getHandle(id).terminate('test over');
      worker?.shutdown();
      await running;
      await native.close();
    }
  });
});

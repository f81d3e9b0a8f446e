/*
 * A job is one unit: its schedule (the source of truth) and its watchdog converge whatever dies between
 * the two writes. The client is a real process (test/chaos/scheduler-process.ts) SIGKILLed right after
 * the server answered its first write; the server is a real dev server stopped right after it accepted
 * the schedule. Checked: a create whose watchdog never started is reported by `tflow doctor` and repaired
 * by `--repair` (its dead-man switch then alerts) or by the job's next write; a remove whose watchdog
 * signal never came sends no false "silent" alert; a past-due one-off rewritten with replaceExisting
 * whose backfill never came stays listed, is reported and runs once repaired; and a create whose rollback
 * failed too throws the original error, the rollback's attached.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InterceptingCall, status as GrpcStatus, type Interceptor } from '@grpc/grpc-js';
import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PipelineScheduler } from '../../src/client/pipeline-scheduler';
import { JobNotFoundError, ServerUnreachableError } from '../../src/client/errors';
import { findJobDisagreements, repairJobDisagreement } from '../../src/client/job-repair';
import { readEnv } from '../../src/config';
import { DevServer } from '../../src/devserver/dev-server';
import { pipeline } from '../../src/pipeline';
import { createWatchdogWorker } from '../../src/worker/watchdog-worker';
import type { JobAlertEvent } from '../../src/workflows/alert-types';
import { watchdogStateQuery, watchdogWorkflowId } from '../../src/workflows/job-watchdog-defs';
import type { DoctorReport } from '../../src/setup/doctor-types';
import { runTflow } from '../helpers/plain-server';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import type { SchedulerOperation } from './scheduler-process';

const received: JobAlertEvent[] = [];
let hook: Server;
let hookUrl: string;
const postsOf = (jobId: string) => received.filter((e) => e.jobId === jobId);

const steps = {
  async work(x: number) {
    return x + 1;
  },
};
const work = pipeline('unit-work', { steps }).step('work');

let t: TestContext;
let watchdogQueue: string;
let scheduler: PipelineScheduler;
const children: ChildProcess[] = [];
const dirs: string[] = [];
let stopWatchdogWorker: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push(JSON.parse(body) as JobAlertEvent);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
  t = await connectTest('job-unit');
  watchdogQueue = `${t.taskQueue}-watchdog`;
  await t.startWorker(steps);
  const watchdogWorker = await createWatchdogWorker({
    connection: t.nativeConnection,
    namespace: t.namespace,
    taskQueue: watchdogQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
  });
  stopWatchdogWorker = async () => {
    watchdogWorker.shutdown();
    await running;
  };
  const running = watchdogWorker.run();
  scheduler = new PipelineScheduler(t.client, {
    taskQueue: t.taskQueue,
    steps,
    watchdogTaskQueue: watchdogQueue,
  });
});
afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await stopWatchdogWorker();
  await t?.close();
  await new Promise((resolve) => hook?.close(resolve));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A scheduler process, connected and waiting for its operation. */
async function startScheduler(haltAfter: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(__dirname, 'scheduler-process.ts'),
      inject('temporalAddress'),
      t.namespace,
      t.taskQueue,
      watchdogQueue,
      haltAfter,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`scheduler process exited early with ${code}`)));
  });
  return child;
}

/**
 * Sends the operation, waits until the server answered the write named at start (the process holds that
 * answer and every call after it), then SIGKILLs the process.
 */
async function killAfterFirstWrite(child: ChildProcess, op: SchedulerOperation): Promise<void> {
  const halted = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      if (text.includes('halted')) resolve();
      if (text.includes('done')) reject(new Error('the operation finished: it was not halted'));
    });
    child.once('exit', (code) => reject(new Error(`scheduler process exited with ${code}`)));
  });
  child.stdin!.write(`${JSON.stringify(op)}\n`);
  await halted;
  const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
}

async function watchdogStatus(jobId: string): Promise<string> {
  try {
    return (await t.client.workflow.getHandle(watchdogWorkflowId(jobId)).describe()).status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'NONE';
    throw err;
  }
}

async function doctor(...extra: string[]): Promise<DoctorReport> {
  const r = await runTflow([
    'doctor',
    '--json',
    '--address',
    inject('temporalAddress'),
    '--namespace',
    t.namespace,
    '--task-queue',
    t.taskQueue,
    '--watchdog-task-queue',
    watchdogQueue,
    ...extra,
  ]);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as DoctorReport;
}

const partsOf = (r: DoctorReport) => r.checks.find((c) => c.id === 'job-parts')!;

/** A job is judged once its last write is 10 s old (it may still be between its two writes before). */
async function settled(jobId: string): Promise<void> {
  const d = await t.client.schedule.getHandle(jobId).describe();
  const at = (d.info.lastUpdatedAt ?? d.info.createdAt).getTime() + 10_500;
  await waitFor('the job to be 10 s old', async () => (Date.now() >= at ? true : undefined), 30_000);
}

describe('a create killed between the schedule and the watchdog', () => {
  it('is reported by tflow doctor, repaired by --repair (its dead-man switch then alerts), and then reported clean', async () => {
    const jobId = t.uid('created');
    const child = await startScheduler('CreateSchedule');
    await killAfterFirstWrite(child, {
      op: 'create',
      jobId,
      hookUrl: `${hookUrl}/created`,
      expectSuccessWithin: '3s',
    });
    // Half a job: the schedule with its alerts, no watchdog.
    const job = await scheduler.getJob(jobId);
    expect(!job.foreign && job.alerts?.expectSuccessWithin).toBe('3s');
    expect(await watchdogStatus(jobId)).toBe('NONE');

    await settled(jobId);
    const before = partsOf(await doctor());
    expect(before.status).toBe('warn');
    expect(before.summary).toContain(`job "${jobId}" has alerts that need a watchdog`);
    expect(before.fix).toContain('npx tflow doctor --repair');

    const repaired = partsOf(await doctor('--repair'));
    expect(repaired.summary).toContain(`watchdog-missing ${jobId}`);
    const watchdog = t.client.workflow.getHandle(watchdogWorkflowId(jobId));
    await waitFor('the repaired watchdog to read the job', async () =>
      (await watchdog.query(watchdogStateQuery)).config?.expectSuccessWithinMs === 3_000 ? true : undefined,
    );
    // The dead-man switch runs: the paused job has no run, and goes silent.
    const [silent] = await waitFor(
      'the silent alert',
      async () => (postsOf(jobId).length > 0 ? postsOf(jobId) : undefined),
      30_000,
    );
    expect(silent).toMatchObject({ kind: 'silent', jobId, schedule: 'paused' });

    const after = partsOf(await doctor());
    expect(after.summary).not.toContain(jobId);
    await scheduler.removeJob(jobId);
  }, 180_000);

  it("is repaired by the job's next write", async () => {
    const jobId = t.uid('next-write');
    const child = await startScheduler('CreateSchedule');
    await killAfterFirstWrite(child, {
      op: 'create',
      jobId,
      hookUrl: `${hookUrl}/next-write`,
      expectSuccessWithin: '1h',
    });
    expect(await watchdogStatus(jobId)).toBe('NONE');
    await scheduler.modifyJob(jobId, { note: 'any write' });
    expect(await watchdogStatus(jobId)).toBe('RUNNING');
    const watchdog = t.client.workflow.getHandle(watchdogWorkflowId(jobId));
    await waitFor('the watchdog to read the job', async () =>
      (await watchdog.query(watchdogStateQuery)).config?.expectSuccessWithinMs === 3_600_000
        ? true
        : undefined,
    );
    const found = await findJobDisagreements(t.client, { settleMs: 0, watchdogTaskQueue: watchdogQueue });
    expect(found.filter((f) => f.jobId === jobId)).toEqual([]);
    await scheduler.removeJob(jobId);
    await waitFor('the watchdog to end with its job', async () =>
      (await watchdogStatus(jobId)) === 'COMPLETED' ? true : undefined,
    );
  }, 120_000);
});

describe('a remove killed between deleting the schedule and signalling the watchdog', () => {
  it('sends no silent alert for the deleted job: the watchdog reads the schedule at its deadline and ends quietly', async () => {
    const jobId = t.uid('removed');
    const child = await startScheduler('DeleteSchedule');
    await scheduler.scheduleInterval(work, {
      jobId,
      every: '1h',
      args: [1],
      paused: true,
      expectSuccessWithin: '8s',
      onSilent: { webhook: { url: `${hookUrl}/removed` } },
    });
    const watchdog = t.client.workflow.getHandle(watchdogWorkflowId(jobId));
    await waitFor('the watchdog to read the job', async () =>
      (await watchdog.query(watchdogStateQuery)).config?.expectSuccessWithinMs === 8_000 ? true : undefined,
    );
    await killAfterFirstWrite(child, { op: 'remove', jobId });
    await expect(scheduler.getJob(jobId)).rejects.toBeInstanceOf(JobNotFoundError);
    // The signal never came: the watchdog still runs, with the deleted job's deadline ahead of it.
    expect(await watchdogStatus(jobId)).toBe('RUNNING');
    const found = await findJobDisagreements(t.client, { settleMs: 0 });
    expect(found.filter((f) => f.jobId === jobId).map((f) => f.kind)).toEqual(['watchdog-orphaned']);

    await waitFor(
      'the watchdog to end at its deadline',
      async () => ((await watchdogStatus(jobId)) === 'COMPLETED' ? true : undefined),
      40_000,
    );
    expect(postsOf(jobId)).toEqual([]);
  }, 120_000);
});

describe('a past-due one-off rewritten with replaceExisting, killed between its update and its backfill', () => {
  it('stays listed, is reported as owing its run, and runs once repaired', async () => {
    const jobId = t.uid('due');
    await scheduler.scheduleInterval(work, { jobId, every: '1h', args: [1] });
    await scheduler.triggerJob(jobId);
    await waitFor('a run of the interval job', async () =>
      (await scheduler.getHistory(jobId)).some((r) => r.status === 'completed') ? true : undefined,
    );
    const child = await startScheduler('UpdateSchedule');
    await killAfterFirstWrite(child, { op: 'replace-due', jobId });
    const job = await scheduler.getJob(jobId);
    expect(!job.foreign && 'runAt' in job.trigger).toBe(true);
    expect(!job.foreign && job.remainingActions).toBe(0);
    // Listed (not taken for a spent one-off because of the runs of the job it replaced).
    await waitFor(
      'the rewritten job in the listing',
      async () => {
        const listed = (await scheduler.listJobs()).find((j) => j.id === jobId);
        return listed && !listed.foreign && 'runAt' in listed.trigger ? true : undefined;
      },
      20_000,
    );

    const found = (await findJobDisagreements(t.client, { settleMs: 0 })).filter((f) => f.jobId === jobId);
    expect(found.map((f) => f.kind)).toEqual(['due-run-missing']);
    await repairJobDisagreement(t.client, found[0]!);
    const run = await waitFor('the owed run to complete', async () => {
      const runs = await scheduler.getHistory(jobId);
      return runs.find(
        (r) => r.scheduledAt?.getTime() === found[0]!.dueAt!.getTime() && r.status === 'completed',
      );
    });
    const result = await t.client.workflow.getHandle(run.workflowId, run.runId).result();
    expect(result).toMatchObject({ output: 3 });
    await waitFor('the spent one-off to be deleted', async () => {
      try {
        await scheduler.getJob(jobId);
        return undefined;
      } catch (err) {
        if (err instanceof JobNotFoundError) return true;
        throw err;
      }
    });
  }, 120_000);
});

describe('a create whose server stops between the schedule and the watchdog', () => {
  it('throws the watchdog start error with the failed rollback attached, and the job is repaired once the server is back', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'tflow-job-unit-'));
    dirs.push(home);
    const opts = {
      home,
      db: path.join(home, 'job-unit.db'),
      cliPath: inject('temporalCli') || readEnv().temporalCli,
      port: 0,
      uiPort: false as const,
      install: false,
      sdkDownload: false,
    };
    let server = await DevServer.start(opts);
    const port = Number(server.address.split(':').pop());
    let stopped = false;
    // Stops the server once it accepted the schedule, before the caller hears of it.
    const stopAfterCreate: Interceptor = (options, nextCall) =>
      new InterceptingCall(nextCall(options), {
        start(metadata, listener, next) {
          next(metadata, {
            onReceiveStatus(status, nextStatus) {
              const created =
                options.method_definition.path.endsWith('/CreateSchedule') && status.code === GrpcStatus.OK;
              if (!created || stopped) return nextStatus(status);
              stopped = true;
              void server.stop().then(() => nextStatus(status));
            },
          });
        },
      });
    const connection = await Connection.connect({
      address: server.address,
      interceptors: [stopAfterCreate, makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 3 }))],
    });
    const jobId = 'unit-rollback';
    try {
      const own = new PipelineScheduler(new Client({ connection, namespace: server.namespace }), {
        taskQueue: 'unit-rollback',
        watchdogTaskQueue: 'unit-rollback-watchdog',
      });
      const attempt = own.scheduleInterval(work, {
        jobId,
        every: '1h',
        paused: true,
        expectSuccessWithin: '1h',
        onSilent: { webhook: { url: `${hookUrl}/rollback` } },
      });
      const err = (await attempt.then(
        () => undefined,
        (e: unknown) => e,
      )) as Error & { rollbackError?: unknown };
      expect(stopped).toBe(true);
      // The watchdog's start failed (server gone), then so did the rollback's delete: the start's error is
      // the one thrown, translated; the delete's rides along.
      expect(err).toBeInstanceOf(ServerUnreachableError);
      expect(err.rollbackError).toBeInstanceOf(Error);
      expect(err.rollbackError).not.toBe(err);

      server = await DevServer.start({ ...opts, port });
      const again = await Connection.connect({ address: server.address });
      try {
        const client = new Client({ connection: again, namespace: server.namespace });
        expect((await client.schedule.getHandle(jobId).describe()).scheduleId).toBe(jobId);
        const found = await findJobDisagreements(client, {
          settleMs: 0,
          watchdogTaskQueue: 'unit-rollback-watchdog',
        });
        expect(found.map((f) => [f.kind, f.jobId])).toEqual([['watchdog-missing', jobId]]);
        await repairJobDisagreement(client, found[0]!, { watchdogTaskQueue: 'unit-rollback-watchdog' });
        const d = await client.workflow.getHandle(watchdogWorkflowId(jobId)).describe();
        expect(d).toMatchObject({ status: { name: 'RUNNING' }, taskQueue: 'unit-rollback-watchdog' });
        expect(await findJobDisagreements(client, { settleMs: 0 })).toEqual([]);
      } finally {
        await again.close();
      }
    } finally {
      await connection.close();
      await server.stop();
    }
  }, 240_000);
});

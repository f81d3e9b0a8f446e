/*
 * A job is one unit: its schedule, written by one call, whose alerts the shared alert evaluator of its
 * alert queue reads from it. Checked against real faults:
 * - a client process (test/chaos/scheduler-process.ts) SIGKILLed at each call of a create or a remove of
 *   an alerting job, right after the server answered it: there is either no job (and no page for it,
 *   ever: no per-job workflow left running) or the whole job, its alerts included, whose dead-man switch
 *   pages once;
 * - the evaluator workflow terminated: `tflow doctor` reports 'evaluator-missing' for its queue, no page
 *   comes meanwhile, and `repairJobDisagreement` starts it again (the switch then pages);
 * - a past-due one-off rewritten with replaceExisting, killed between its update and its backfill: it is
 *   reported as owing its run and runs once repaired;
 * - a real dev server stopped right after it accepted the create's first write, and a create while it is
 *   down: each throws a typed error and, once the server is back, no job exists.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InterceptingCall, status as GrpcStatus, type Interceptor } from '@grpc/grpc-js';
import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  ScheduleNotFoundError,
} from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { JobNotFoundError, ServerUnreachableError } from '../../src/client/errors';
import { findJobDisagreements, repairJobDisagreement } from '../../src/client/jobs/job-repair';
import { lastAlertEvaluatorSettings } from '../../src/client/jobs/alert-evaluator';
import { readEnv } from '../../src/config';
import { DevServer } from '../../src/devserver/dev-server';
import { pipeline } from '../../src/pipeline';
import { createWatchdogWorker } from '../../src/worker/watchdog-worker';
import { alertEvaluatorWorkflowId } from '../../src/workflows/alerts/evaluator-defs';
import type { DoctorReport } from '../../src/setup/doctor-types';
import { ALERT_EVALUATOR_WORKFLOW_TYPE, waitForWaves } from '../helpers/alert-evaluator';
import { startAlertHook, type AlertHook } from '../helpers/alert-hook';
import { runTflow } from '../helpers/plain-server';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import type { SchedulerOperation } from './scheduler-process';

let hook: AlertHook;
const silentOf = (jobId: string) => hook.postsOf(jobId, 'silent');

const steps = {
  async work(x: number) {
    return x + 1;
  },
};
const work = pipeline('unit-work', { steps }).step('work');

let t: TestContext;
let alertQueue: string;
let scheduler: PipelineScheduler;
const children: ChildProcess[] = [];
const dirs: string[] = [];
let stopAlertWorker: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  hook = await startAlertHook();
  t = await connectTest('job-unit');
  alertQueue = `${t.taskQueue}-alerts`;
  await t.startWorker(steps);
  const alertWorker = await createWatchdogWorker({
    connection: t.nativeConnection,
    namespace: t.namespace,
    taskQueue: alertQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    evaluator: { waveMs: 1_000, heartbeatTimeoutMs: 3_000 },
  });
  const running = alertWorker.run();
  stopAlertWorker = async () => {
    alertWorker.shutdown();
    await running;
  };
  scheduler = new PipelineScheduler(t.client, {
    taskQueue: t.taskQueue,
    steps,
    watchdogTaskQueue: alertQueue,
  });
});
afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await stopAlertWorker();
  await t?.close();
  await hook?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A scheduler process, connected and waiting for its operation; `calls` fills with the calls it sends. */
async function startScheduler(haltAfter: string): Promise<{ child: ChildProcess; calls: string[] }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(__dirname, 'scheduler-process.ts'),
      inject('temporalAddress'),
      t.namespace,
      t.taskQueue,
      alertQueue,
      haltAfter,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  children.push(child);
  const calls: string[] = [];
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      for (const m of text.matchAll(/^call (\w+)$/gm)) calls.push(m[1]!);
      if (text.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`scheduler process exited early with ${code}`)));
  });
  return { child, calls };
}

/**
 * Sends the operation, waits until the server answered the call named at start (the process holds that
 * answer and every call after it), then SIGKILLs the process. False when the operation finished instead
 * (it never made that call).
 */
async function killAfterAnswer(child: ChildProcess, op: SchedulerOperation): Promise<boolean> {
  const halted = new Promise<boolean>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      if (text.includes('halted')) resolve(true);
      if (text.includes('done')) resolve(false);
    });
    child.once('exit', (code) => reject(new Error(`scheduler process exited with ${code}`)));
  });
  child.stdin!.write(`${JSON.stringify(op)}\n`);
  const wasHalted = await halted;
  const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return wasHalted;
}

/** The job as getJob reads it, or 'none'. */
async function jobOrNone(jobId: string) {
  try {
    return await scheduler.getJob(jobId);
  } catch (err) {
    if (err instanceof JobNotFoundError) return 'none' as const;
    throw err;
  }
}

/** Workflows running on the alert queue (besides its evaluator) whose id names the job. */
async function runningFor(jobId: string): Promise<string[]> {
  const ids: string[] = [];
  const query = `TaskQueue = '${alertQueue}' AND ExecutionStatus = 'Running'`;
  for await (const wf of t.client.workflow.list({ query })) {
    if (wf.type !== ALERT_EVALUATOR_WORKFLOW_TYPE && wf.workflowId.includes(jobId)) ids.push(wf.workflowId);
  }
  return ids;
}

const failed = (what: string) => (err: unknown) =>
  `${what}: ${err instanceof Error ? err.message : String(err)}`;

/**
 * What a killed writer left of a job, in words. It must be 'whole, paged once' (the job, its alerts as
 * written, whose switch of `withinMs` pages once: the job is paused, no run) or 'none' (no job, never
 * paged, nothing of it running on the alert queue). Waits for the page, or past the deadline the job
 * would have had plus 3 evaluator waves.
 */
async function leftOf(
  jobId: string,
  within: string,
  withinMs: number,
  url: string,
  since: number,
): Promise<string> {
  const job = await jobOrNone(jobId);
  if (job !== 'none') {
    const alerts = !job.foreign && job.alerts;
    const expected = { expectSuccessWithin: within, onSilent: { webhook: { url } } };
    if (JSON.stringify(alerts) !== JSON.stringify(expected))
      return `half: its alerts are ${JSON.stringify(alerts)}`;
    const paged = await waitFor(
      `the silent alert of ${jobId}`,
      async () => (silentOf(jobId).length > 0 ? silentOf(jobId) : undefined),
      withinMs + 30_000,
    ).then(() => undefined, failed('the job, never paged'));
    if (paged) return paged;
    expect(silentOf(jobId)[0]).toMatchObject({
      kind: 'silent',
      jobId,
      schedule: 'paused',
      expectSuccessWithinMs: withinMs,
    });
    const waves = await waitForWaves(t.client, alertQueue, 3).then(
      () => undefined,
      failed('no evaluator waves'),
    );
    if (waves) return waves;
    const posts = hook.postsOf(jobId).length;
    return posts === 1 ? 'whole, paged once' : `whole, paged ${posts} times`;
  }
  await waitFor(
    `the deadline ${jobId} would have had to pass`,
    async () => (Date.now() > since + withinMs + 1_000 ? true : undefined),
    withinMs + 5_000,
  );
  const running = await runningFor(jobId);
  if (running.length > 0) return `none, but still running for it: ${running.join(', ')}`;
  const waves = await waitForWaves(t.client, alertQueue, 3).then(
    () => undefined,
    failed('no evaluator waves'),
  );
  if (waves) return waves;
  const posts = hook.postsOf(jobId).length;
  return posts === 0 ? 'none' : `none, paged ${posts} times`;
}

describe('a client process SIGKILLed in the middle of a create of an alerting job', () => {
  it('leaves no job or the whole job, whose dead-man switch pages once, at whichever call it died', async () => {
    // The calls a create makes, each answered by the server before the kill: the alert queue's evaluator
    // made sure of (a start of a running workflow: no change), then the schedule.
    const haltPoints = ['StartWorkflowExecution', 'CreateSchedule'];
    const outcomes = await Promise.all(
      haltPoints.map(async (haltAfter) => {
        const jobId = t.uid(`created-${haltAfter}`);
        const url = `${hook.url}/created`;
        const { child, calls } = await startScheduler(haltAfter);
        const since = Date.now();
        const halted = await killAfterAnswer(child, {
          op: 'create',
          jobId,
          hookUrl: url,
          expectSuccessWithin: '4s',
        });
        const left = await leftOf(jobId, '4s', 4_000, url, since);
        if ((await jobOrNone(jobId)) !== 'none') await scheduler.removeJob(jobId);
        return { haltAfter, halted, calls, left };
      }),
    );
    expect(outcomes).toEqual([
      { haltAfter: 'StartWorkflowExecution', halted: true, calls: ['StartWorkflowExecution'], left: 'none' },
      {
        haltAfter: 'CreateSchedule',
        halted: true,
        calls: ['StartWorkflowExecution', 'CreateSchedule'],
        left: 'whole, paged once',
      },
    ]);
  }, 120_000);
});

describe('a client process SIGKILLed in the middle of a remove of an alerting job', () => {
  it('leaves the whole job (which pages) or no job, never paged, nothing of it running', async () => {
    const haltPoints = ['DescribeSchedule', 'DeleteSchedule'];
    const outcomes = await Promise.all(
      haltPoints.map(async (haltAfter) => {
        const jobId = t.uid(`removed-${haltAfter}`);
        const url = `${hook.url}/removed`;
        const { child, calls } = await startScheduler(haltAfter);
        const since = Date.now();
        await scheduler.scheduleInterval(work, {
          jobId,
          every: '1h',
          args: [1],
          paused: true,
          expectSuccessWithin: '8s',
          onSilent: { webhook: { url } },
        });
        const halted = await killAfterAnswer(child, { op: 'remove', jobId });
        const left = await leftOf(jobId, '8s', 8_000, url, since);
        if ((await jobOrNone(jobId)) !== 'none') await scheduler.removeJob(jobId);
        return { haltAfter, halted, calls, left };
      }),
    );
    expect(outcomes).toEqual([
      { haltAfter: 'DescribeSchedule', halted: true, calls: ['DescribeSchedule'], left: 'whole, paged once' },
      {
        haltAfter: 'DeleteSchedule',
        halted: true,
        calls: ['DescribeSchedule', 'DeleteSchedule'],
        left: 'none',
      },
    ]);
  }, 120_000);
});

async function doctor(): Promise<DoctorReport> {
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
    alertQueue,
  ]);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as DoctorReport;
}

describe('the alert evaluator terminated', () => {
  it('is reported by tflow doctor as evaluator-missing, pages nothing meanwhile, and once repaired the switch pages', async () => {
    const jobId = t.uid('no-evaluator');
    const evaluator = t.client.workflow.getHandle(alertEvaluatorWorkflowId(alertQueue));
    expect((await evaluator.describe()).status.name).toBe('RUNNING');
    await scheduler.scheduleInterval(work, {
      jobId,
      every: '1h',
      args: [1],
      paused: true,
      expectSuccessWithin: '10s',
      onSilent: { webhook: { url: `${hook.url}/no-evaluator` } },
    });
    await evaluator.terminate('job-unit test: the evaluator is gone');
    const created = (await t.client.schedule.getHandle(jobId).describe()).info.createdAt.getTime();
    // Nothing evaluates the job: its deadline passes with no page.
    await waitFor(
      'the deadline to pass with no evaluator',
      async () => (Date.now() > created + 12_000 ? true : undefined),
      30_000,
    );
    expect(hook.postsOf(jobId)).toEqual([]);

    const parts = (await doctor()).checks.find((c) => c.id === 'job-parts')!;
    expect(parts.status).toBe('warn');
    expect(parts.summary).toContain(`no alert evaluator runs for task queue "${alertQueue}"`);
    const found = (await findJobDisagreements(t.client, { settleMs: 0 })).filter(
      (f) => f.taskQueue === alertQueue,
    );
    expect(found).toEqual([
      expect.objectContaining({
        kind: 'evaluator-missing',
        jobId: alertEvaluatorWorkflowId(alertQueue),
        taskQueue: alertQueue,
      }),
    ]);

    await repairJobDisagreement(t.client, found[0]!);
    expect((await evaluator.describe()).status.name).toBe('RUNNING');
    // Started again as its alert worker had configured it (a 3 s heartbeat timeout), not with the defaults.
    expect(await lastAlertEvaluatorSettings(t.client, alertQueue)).toEqual({ heartbeatTimeoutMs: 3_000 });
    const [silent] = await waitFor(
      'the silent alert once the evaluator runs again',
      async () => (silentOf(jobId).length > 0 ? silentOf(jobId) : undefined),
      30_000,
    );
    expect(silent).toMatchObject({
      kind: 'silent',
      jobId,
      schedule: 'paused',
      expectSuccessWithinMs: 10_000,
    });
    expect(
      (await findJobDisagreements(t.client, { settleMs: 0 })).filter((f) => f.taskQueue === alertQueue),
    ).toEqual([]);
    await waitForWaves(t.client, alertQueue, 3);
    expect(hook.postsOf(jobId)).toHaveLength(1);
    await scheduler.removeJob(jobId);
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
    const { child } = await startScheduler('UpdateSchedule');
    await killAfterAnswer(child, { op: 'replace-due', jobId });
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
    await waitFor('the spent one-off to be deleted', async () =>
      (await jobOrNone(jobId)) === 'none' ? true : undefined,
    );
  }, 120_000);
});

describe('a create while the server stops or is down', () => {
  it('throws ServerUnreachableError and creates nothing, whichever of its writes the server accepted', async () => {
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
    let stoppedAfter: string | undefined;
    const writes = ['StartWorkflowExecution', 'SignalWithStartWorkflowExecution', 'CreateSchedule'];
    // Stops the server once it accepted the create's first write, before the caller hears of it.
    const stopAfterFirstWrite: Interceptor = (options, nextCall) =>
      new InterceptingCall(nextCall(options), {
        start(metadata, listener, next) {
          next(metadata, {
            onReceiveStatus(status, nextStatus) {
              const method = options.method_definition.path.split('/').pop()!;
              if (stoppedAfter || !writes.includes(method) || status.code !== GrpcStatus.OK) {
                return nextStatus(status);
              }
              stoppedAfter = method;
              void server.stop().then(() => nextStatus(status));
            },
          });
        },
      });
    const connection = await Connection.connect({
      address: server.address,
      interceptors: [
        stopAfterFirstWrite,
        makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 3 })),
      ],
    });
    const jobIds = ['unit-stopped', 'unit-down'];
    const create = (own: PipelineScheduler, jobId: string) =>
      own
        .scheduleInterval(work, {
          jobId,
          every: '1h',
          paused: true,
          expectSuccessWithin: '1h',
          onSilent: { webhook: { url: `${hook.url}/stopped` } },
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
    try {
      const own = new PipelineScheduler(new Client({ connection, namespace: server.namespace }), {
        taskQueue: 'unit-stopped',
        watchdogTaskQueue: 'unit-stopped-alerts',
      });
      // The server stops right after it accepted the create's first write.
      const stoppedErr = await create(own, jobIds[0]!);
      expect(stoppedAfter).toBeDefined();
      expect(stoppedErr).toBeInstanceOf(ServerUnreachableError);
      // A create while it is down.
      const downErr = await create(own, jobIds[1]!);
      expect(downErr).toBeInstanceOf(ServerUnreachableError);

      server = await DevServer.start({ ...opts, port });
      const again = await Connection.connect({ address: server.address });
      try {
        const client = new Client({ connection: again, namespace: server.namespace });
        for (const jobId of jobIds) {
          await expect(client.schedule.getHandle(jobId).describe()).rejects.toBeInstanceOf(
            ScheduleNotFoundError,
          );
        }
        const listed: string[] = [];
        for await (const s of client.schedule.list()) listed.push(s.scheduleId);
        expect(listed).toEqual([]);
        expect(await findJobDisagreements(client, { settleMs: 0 })).toEqual([]);
        // The write it accepted was the alert queue's evaluator, made sure of before the schedule.
        expect(stoppedAfter).toBe('StartWorkflowExecution');
      } finally {
        await again.close();
      }
    } finally {
      await connection.close();
      await server.stop();
    }
  }, 240_000);
});

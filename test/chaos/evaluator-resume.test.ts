/*
 * How soon the shared alert evaluator is back after its alert worker process is SIGKILLed (issue 31): the
 * product promises a dead alert worker is replaced within about the evaluation's heartbeat timeout
 * (docs/operations.md). Right after each kill a job is created whose dead-man deadline (1 s) passes while
 * no evaluator runs: the evaluator is back when it raises that job's `silent` (at its first wave after the
 * rebuild). Each kill is split with the server's view of the evaluation activity (the evaluator workflow's
 * pending activity; the history records no attempt but the last) and the new attempt's heartbeat:
 *   kill -> heartbeat timeout (the server notices: the killed attempt's last heartbeat + the timeout)
 *        -> retry due (the backoff the server applied) -> started (pickup) -> rebuilt (`rebuildMs`)
 *        -> the silent raised (the first wave's checks) -> posted to the webhook.
 * (a) SIGKILLed four times in a row, a standby alert worker polling each time (any number may run): each
 *     is back within the heartbeat timeout + 4.5 s. It failed so before (11.7, 8.9, 10.2, 19.1 s): the
 *     retries count every attempt ended within one activity (an hour of waves) and the backoff was 1 s
 *     doubling with them to a minute (the fourth kill in a row waited 8 s, the seventh a minute), and the
 *     first wave waited for its query of the evaluator workflow, handed to the dead worker's sticky queue
 *     until the SDK's 10 s timeout (with a 3 s heartbeat timeout, that even timed the new attempt out);
 * (b) SIGKILLed, and the Temporal server (its own, on a SQLite file) SIGKILLed and started again once the
 *     killed attempt's heartbeat deadline has passed: back within the same bound after the server is;
 * (c) a rebuild the server refuses (its listings fail) is tried again by the same attempt, backing off
 *     from 1 s (a rebuild lists every schedule of the queue: not at the activity's short retries), alive
 *     meanwhile and heartbeating what its predecessor carried.
 * The alert worker is test/chaos/evaluator-resume-process.ts: waves every second, heartbeat timeout 3 s,
 * the SDK's defaults otherwise.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { CancelledFailure } from '@temporalio/common';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DefaultLogger } from '@temporalio/worker';
import { createEvaluatorActivities } from '../../src/activities/alerts/evaluator/evaluate-alerts';
import type { EvaluatorCarry } from '../../src/activities/alerts/evaluator/evaluator-state';
import type { JobAlertEvent } from '../../src/workflows/alert-types';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { readEnv } from '../../src/config';
import { freePort } from '../../src/devserver/ports';
import { pipeline } from '../../src/pipeline';
import {
  alertEvaluatorWorkflowId,
  type AlertEvaluatorCarry,
} from '../../src/workflows/alerts/evaluator-defs';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import { killServer, startKillableServer, type KillableServer } from './killable-server';

const { PendingActivityState, TimeoutType } = temporal.api.enums.v1;

/** evaluator-resume-process.ts's evaluation heartbeat timeout. */
const HEARTBEAT_TIMEOUT_MS = 3_000;
/**
 * The evaluation's retry backoff at most (evaluator-workflow.ts), and what the pickup, the rebuild (a few
 * jobs) and the first wave's checks may take on a loaded machine: the promise, counted from the kill to the
 * `silent` raised.
 */
const RETRY_AT_MOST_MS = 2_000;
const START_AND_FIRST_WAVE_MS = 2_500;
const RESUME_BOUND_MS = HEARTBEAT_TIMEOUT_MS + RETRY_AT_MOST_MS + START_AND_FIRST_WAVE_MS;
/** Kills in a row in (a): the former backoff's fourth retry alone waited 8 s, past the bound. */
const KILLS = 4;

const steps = {
  async work(x: number) {
    return x + 1;
  },
};
const work = pipeline('evaluator-resume-work', { steps }).step('work');

let t: TestContext;
const children: ChildProcess[] = [];
const dirs: string[] = [];
/** The webhook's posts, with when each arrived. */
const received: { event: JobAlertEvent; at: number }[] = [];
let hook: Server;
let hookUrl: string;

beforeAll(async () => {
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ event: JSON.parse(body) as JobAlertEvent, at: Date.now() });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
  t = await connectTest('evaluator-resume');
});
afterAll(async () => {
  await killAll(children);
  await t?.close();
  hook?.closeAllConnections();
  await new Promise((resolve) => hook?.close(resolve));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function killAll(processes: ChildProcess[]): Promise<void> {
  await Promise.all(
    processes
      .filter((c) => c.exitCode === null && c.signalCode === null)
      .map((c) => new Promise((resolve) => (c.once('exit', resolve), c.kill('SIGKILL')))),
  );
}

/** Starts an alert worker process (evaluator-resume-process.ts) on `queue`; resolves once it polls. */
async function startAlertProcess(address: string, namespace: string, queue: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(__dirname, 'evaluator-resume-process.ts'),
      address,
      namespace,
      queue,
      inject('workflowBundlePath'),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`alert worker process exited early with ${code}`)));
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
}

/** The evaluation activity as the server holds it (the evaluator workflow's pending activity). */
interface Attempt {
  attempt: number;
  state: 'scheduled' | 'started' | 'other';
  /** When a worker started this attempt. */
  startedAt?: number;
  /** The last heartbeat the server recorded. */
  heartbeatAt?: number;
  /** When this attempt is due (a retry waiting for its backoff). */
  retryAt?: number;
  /** The previous attempt's failure, as the server says it. */
  failure?: string;
  /** The pid of the worker that last started it. */
  pid?: number;
  /** From the last heartbeat: when its last wave ended, its waves, the jobs it watches, its rebuild. */
  waveAt?: number;
  rebuildMs?: number;
  waves?: number;
  jobs?: number;
}

async function evaluation(client: Client, queue: string): Promise<Attempt | undefined> {
  const { raw } = await client.workflow.getHandle(alertEvaluatorWorkflowId(queue)).describe();
  const p = raw.pendingActivities?.[0];
  if (!p) return undefined;
  const payloads = p.heartbeatDetails?.payloads;
  const hb =
    payloads && payloads.length > 0
      ? await decodeFromPayloadsAtIndex<EvaluatorCarry>(client.options.loadedDataConverter, 0, payloads)
      : undefined;
  const f = p.lastFailure;
  return {
    attempt: p.attempt ?? 0,
    state:
      p.state === PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED
        ? 'scheduled'
        : p.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
          ? 'started'
          : 'other',
    startedAt: optionalTsToMs(p.lastStartedTime),
    heartbeatAt: optionalTsToMs(p.lastHeartbeatTime),
    retryAt: optionalTsToMs(p.nextAttemptScheduleTime),
    failure: f
      ? f.timeoutFailureInfo
        ? `timeout ${TimeoutType[f.timeoutFailureInfo.timeoutType ?? 0]}`
        : `failure: ${f.message}`
      : undefined,
    pid: p.lastWorkerIdentity ? Number.parseInt(p.lastWorkerIdentity, 10) : undefined,
    waveAt: hb?.waveAt ? Date.parse(hb.waveAt) : undefined,
    waves: hb?.waves,
    jobs: hb?.jobs,
    rebuildMs: hb?.rebuildMs,
  };
}

/** An attempt started whose first wave has ended (its heartbeat says a wave ended after it started). */
const waving = (a: Attempt | undefined) =>
  a?.state === 'started' && a.startedAt !== undefined && a.waveAt !== undefined && a.waveAt > a.startedAt;

/** Waits for the evaluation to run waves (on `jobs` jobs at least), and returns that attempt. */
async function running(client: Client, queue: string, jobs: number): Promise<Attempt> {
  return waitFor(
    `the evaluator of ${queue} to wave on ${jobs} jobs`,
    async () => {
      const a = await evaluation(client, queue);
      return waving(a) && (a!.jobs ?? 0) >= jobs ? a : undefined;
    },
    60_000,
  );
}

/** One kill, measured: ms from the kill. */
interface Resume {
  /** When the process was killed (epoch ms). */
  killedAt: number;
  /** The attempt killed. */
  attempt: number;
  /** The killed attempt's last heartbeat the server got (negative: before the kill). */
  lastHeartbeat: number;
  /** When the server timed the attempt out (its last heartbeat + the timeout), the retry's due time. */
  timedOut: number;
  retryDue: number;
  backoff: number;
  started: number;
  rebuilt: number;
  /** The job created after the kill: its `silent` raised (the event's `at`, in the first wave), posted. */
  raised: number;
  posted: number;
  failure: string;
}

/**
 * SIGKILLs the process running the evaluation, then creates a job with a 1 s switch (`created`) and runs
 * `during` (a server fault); follows the server's view of the activity until the job's `silent` is posted
 * and the next attempt's heartbeat has come.
 */
async function killAndFollow(opts: {
  client: () => Client;
  queue: string;
  processes: ChildProcess[];
  /** Creates the job whose silent falls due while no evaluator runs; returns its id. */
  created: () => Promise<string>;
  during?: (killed: Attempt) => Promise<void>;
}): Promise<Resume> {
  const { client, queue } = opts;
  const before = await running(client(), queue, 1);
  const holder = opts.processes.find(
    (c) => c.pid === before.pid && c.exitCode === null && c.signalCode === null,
  );
  if (!holder) throw new Error(`the evaluation runs on pid ${before.pid}, not one of this test's processes`);
  const killedAt = Date.now();
  await kill(holder);
  const jobId = await opts.created();
  await opts.during?.(before);
  let retryAt: number | undefined;
  const trace: { at: number; seen: string }[] = [];
  const follow = async () => {
    try {
      const a = await evaluation(client(), queue);
      if (a && a.attempt > before.attempt && a.retryAt !== undefined) retryAt = a.retryAt;
      const seen =
        a &&
        `${a.attempt} ${a.state} pid ${a.pid} started ${a.startedAt === undefined ? '-' : ((a.startedAt - killedAt) / 1000).toFixed(2)} due ${a.retryAt === undefined ? '-' : ((a.retryAt - killedAt) / 1000).toFixed(2)} hb ${a.heartbeatAt === undefined ? '-' : ((a.heartbeatAt - killedAt) / 1000).toFixed(2)}`;
      if (seen && seen !== trace.at(-1)?.seen) trace.push({ at: Date.now() - killedAt, seen });
      return a;
    } catch {
      return undefined; // the server away (b)
    }
  };
  const posted = await waitFor(
    `the silent of ${jobId}`,
    async () => {
      await follow();
      return received.find((r) => r.event.jobId === jobId && r.event.kind === 'silent');
    },
    120_000,
  );
  const after = await waitFor(
    `the heartbeat of the attempt after ${before.attempt}`,
    async () => {
      const a = await follow();
      return a && a.attempt > before.attempt && waving(a) ? a : undefined;
    },
    30_000,
  );
  console.log(
    `the evaluation as the server showed it after the kill of pid ${before.pid} (s after the kill: attempt, state, worker, started, due, last heartbeat):\n${trace.map((x) => `  ${(x.at / 1000).toFixed(2)} ${x.seen}`).join('\n')}`,
  );
  const from = (at: number | undefined) => (at === undefined ? NaN : at - killedAt);
  // The server times an attempt out at its last heartbeat + the timeout (it says no more: the pending
  // activity's lastAttemptCompleteTime and currentRetryInterval stay empty); the retry's due time is seen
  // while it waits (nextAttemptScheduleTime).
  const timedOut = before.heartbeatAt! + HEARTBEAT_TIMEOUT_MS;
  return {
    killedAt,
    attempt: before.attempt,
    lastHeartbeat: from(before.heartbeatAt),
    timedOut: from(timedOut),
    retryDue: from(retryAt),
    backoff: retryAt === undefined ? NaN : retryAt - timedOut,
    started: from(after.startedAt),
    rebuilt: from(after.rebuildMs === undefined ? undefined : after.startedAt! + after.rebuildMs),
    raised: from(Date.parse(posted.event.at)),
    posted: from(posted.at),
    failure: after.failure ?? '',
  };
}

function print(title: string, resumes: Resume[]): void {
  const s = (ms: number) => (ms / 1000).toFixed(2).padStart(7);
  console.log(
    [
      title,
      'kill attempt  last hb timed out  backoff retry due  started  rebuilt   raised   posted  failure',
      ...resumes.map((r, i) =>
        [
          String(i + 1).padStart(4),
          String(r.attempt).padStart(7),
          ...[
            r.lastHeartbeat,
            r.timedOut,
            r.backoff,
            r.retryDue,
            r.started,
            r.rebuilt,
            r.raised,
            r.posted,
          ].map(s),
          ` ${r.failure}`,
        ].join(' '),
      ),
    ].join('\n'),
  );
}

/** Jobs with a long dead-man switch on the alert queue: the rebuild lists and reads them; none alerts. */
async function createJobs(scheduler: PipelineScheduler, prefix: string, n: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      scheduler.schedule(work, {
        jobId: `${prefix}-${i}`,
        cron: '0 3 * * *',
        args: [i],
        expectSuccessWithin: '1h',
        onSilent: { webhook: { url: 'http://127.0.0.1:9/never' } },
      }),
    ),
  );
}

/** A job with a 1 s dead-man switch, nobody running it: silent 1 s after its create. */
async function silentJob(scheduler: PipelineScheduler, jobId: string): Promise<string> {
  return scheduler.schedule(work, {
    jobId,
    cron: '0 3 * * *',
    args: [0],
    expectSuccessWithin: '1s',
    onSilent: { webhook: { url: `${hookUrl}/silent` } },
  });
}

describe('the alert worker process SIGKILLed', () => {
  it(`${KILLS} times in a row, a standby polling: the evaluator raises what fell due within the heartbeat timeout + ${(RESUME_BOUND_MS - HEARTBEAT_TIMEOUT_MS) / 1000} s of each kill`, async () => {
    const queue = `${t.taskQueue}-in-a-row`;
    const address = inject('temporalAddress');
    const scheduler = new PipelineScheduler(t.client, {
      taskQueue: `${t.taskQueue}-nobody`,
      watchdogTaskQueue: queue,
    });
    const mine = await Promise.all([1, 2].map(() => startAlertProcess(address, t.namespace, queue)));
    const prefix = t.uid('resume');
    const jobIds = await createJobs(scheduler, prefix, 3);
    const resumes: Resume[] = [];
    try {
      await running(t.client, queue, jobIds.length);
      for (let k = 0; k < KILLS; k++) {
        // A replacement for the one about to die, started meanwhile: two poll at each kill.
        const next = k + 1 < KILLS ? startAlertProcess(address, t.namespace, queue) : undefined;
        const resume = await killAndFollow({
          client: () => t.client,
          queue,
          processes: mine,
          created: async () => {
            const jobId = await silentJob(scheduler, `${prefix}-silent-${k}`);
            jobIds.push(jobId);
            return jobId;
          },
        });
        resumes.push(resume);
        if (next) mine.push(await next);
      }
      print(
        `the evaluator after ${KILLS} SIGKILLs of its alert worker in a row (s after each kill)`,
        resumes,
      );
      // Each attempt the kill ended was timed out by its heartbeat, not failed otherwise.
      expect(resumes.map((r) => r.failure)).toEqual(resumes.map(() => 'timeout TIMEOUT_TYPE_HEARTBEAT'));
      // The rebuilt evaluator watches every job.
      expect((await running(t.client, queue, jobIds.length)).jobs).toBe(jobIds.length);
      expect(resumes.map((r, i) => ({ kill: i + 1, backInTime: r.raised <= RESUME_BOUND_MS }))).toEqual(
        resumes.map((_, i) => ({ kill: i + 1, backInTime: true })),
      );
    } finally {
      await killAll(mine);
      await Promise.all(jobIds.map((id) => scheduler.removeJob(id)));
    }
  }, 120_000);

  it('and the Temporal server SIGKILLed, started again once the heartbeat deadline has passed: back within the bound after the server is', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'tflow-evaluator-resume-'));
    dirs.push(home);
    const cli = inject('temporalCli') || readEnv().temporalCli!;
    const port = await freePort();
    const dbFile = path.join(home, 'evaluator-resume.db');
    let server: KillableServer = await startKillableServer(cli, port, dbFile);
    const queue = 'evaluator-resume-alerts';
    let connection = await Connection.connect({ address: server.address });
    let client = new Client({ connection, namespace: server.namespace });
    const mine = await Promise.all(
      [1, 2].map(() => startAlertProcess(server.address, server.namespace, queue)),
    );
    let backAt = 0;
    try {
      const scheduler = new PipelineScheduler(client, {
        taskQueue: 'evaluator-resume-nobody',
        watchdogTaskQueue: queue,
      });
      await createJobs(scheduler, 'server-restart', 3);
      await running(client, queue, 3);
      const resume = await killAndFollow({
        client: () => client,
        queue,
        processes: mine,
        created: () => silentJob(scheduler, 'server-restart-silent'),
        during: async (killed) => {
          await connection.close();
          await killServer(server);
          // Down until the killed attempt's heartbeat deadline has passed: the server times it out late.
          const deadline = killed.heartbeatAt! + HEARTBEAT_TIMEOUT_MS + 500;
          await waitFor('the heartbeat deadline to pass', async () =>
            Date.now() > deadline ? true : undefined,
          );
          server = await startKillableServer(cli, port, dbFile);
          backAt = Date.now();
          connection = await Connection.connect({ address: server.address });
          client = new Client({ connection, namespace: server.namespace });
        },
      });
      const serverBack = backAt - resume.killedAt;
      print(
        `the evaluator after a SIGKILL of its alert worker and a server restart (server back at ${(serverBack / 1000).toFixed(2)} s; s after the kill)`,
        [resume],
      );
      expect(resume.failure).toBe('timeout TIMEOUT_TYPE_HEARTBEAT');
      expect(serverBack).toBeGreaterThan(resume.lastHeartbeat + HEARTBEAT_TIMEOUT_MS);
      // The heartbeat deadline passed while the server was down: acted on once it is back.
      expect(resume.raised).toBeLessThanOrEqual(serverBack + RESUME_BOUND_MS - HEARTBEAT_TIMEOUT_MS);
      expect((await running(client, queue, 4)).jobs).toBe(4);
    } finally {
      await killAll(mine);
      await connection.close();
      await killServer(server);
    }
  }, 120_000);
});

describe('a rebuild the server refuses', () => {
  it('is tried again by the same attempt, 1 s then doubling, alive and carrying what it was handed meanwhile', async () => {
    // A namespace the server does not have: its listings are refused (a real server's answer).
    const client = new Client({ connection: t.connection, namespace: t.uid('no-such-namespace') });
    const { tflowEvaluateAlerts } = createEvaluatorActivities({ waveMs: 200 });
    const logged: { at: number; message: string }[] = [];
    const heartbeats: unknown[] = [];
    const env = new MockActivityEnvironment(
      { workflowNamespace: client.options.namespace },
      {
        client,
        logger: new DefaultLogger('ERROR', (e) => logged.push({ at: Date.now(), message: e.message })),
      },
    );
    env.on('heartbeat', (d: unknown) => heartbeats.push(d));
    const carry: AlertEvaluatorCarry = {
      runsSeenUntil: new Date().toISOString(),
      silent: { 'a-silent-job': '2026-01-01T00:00:00.000Z' },
      waves: 7,
      waveAt: new Date().toISOString(),
    };
    const startedAt = Date.now();
    const ended = env.run(tflowEvaluateAlerts, { taskQueue: `${t.taskQueue}-refused`, carry }).then(
      () => 'returned',
      (err: unknown) => err,
    );
    const tries = () => logged.filter((l) => l.message.includes('could not read its jobs'));
    await waitFor('three tries of the rebuild', async () => (tries().length >= 3 ? true : undefined), 15_000);
    env.cancel();
    const end = await ended;
    expect(end).toBeInstanceOf(CancelledFailure);
    expect(tries().map((l) => l.message.replace(/: .*/s, ''))).toEqual(
      [1, 2, 3].map(
        (n) =>
          `the alert evaluator could not read its jobs (try ${n}), trying again in ${1000 * 2 ** (n - 1)} ms`,
      ),
    );
    expect(tries()[0]!.message).toMatch(/namespace/i);
    // The third try came after the two waits (1 s, 2 s), not at once.
    expect(tries()[2]!.at - startedAt).toBeGreaterThanOrEqual(3_000);
    expect(heartbeats.length).toBeGreaterThan(0);
    expect(heartbeats.every((d) => JSON.stringify(d) === JSON.stringify(carry))).toBe(true);
  });
});

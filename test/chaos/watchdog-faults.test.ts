/*
 * The shared alert evaluator under real faults, each alert counted where it lands, the webhook:
 * (a) the alert worker process SIGKILLed while one job is silent and others count down (some deadlines
 *     pass while it is down): a new process raises no second `silent` for a cause, loses none, and
 *     `recovered` comes once each job runs again; exactly one delivery workflow per cause, no per-job
 *     workflow;
 * (a'') the alert worker SIGKILLed before an occurrence whose start the server drops (a workflow of the
 *     run's id already there), started again after its catch-up window: the new process raises `missed`
 *     (not-started) for that time from what its predecessor's heartbeat carried, once;
 * (a') the alert worker SIGKILLed in the middle of a POST: the one delivery is retried, the webhook hears
 *     the same event twice (receivers dedupe on jobId, kind and at), and nothing is raised again;
 * (b) the Temporal server process SIGKILLed and started again on the same SQLite file: alerts resume,
 *     none lost, none doubled;
 * (c) the alert worker started without the codec key of the jobs (written with a codec) for a while, then
 *     with it: meanwhile `tflow doctor`'s job-alerts check names the jobs it cannot read; after, the
 *     silent alert that came due meanwhile is raised, and the one due later, once each; and a job the
 *     evaluator of another alert queue cannot read (its worker lacks the key) is not reported for it
 *     (fails today: see that test);
 * (d) the upgrade: per-job watchdogs of the release before (started as its client did), one of them
 *     already silent (paged by it), then the new alert worker: the evaluator retires them, raises no
 *     second `silent` for the watchdog's silent period, `recovered` when the job runs again, and the
 *     other job's `silent` on the watchdog's clock.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { scheduledRunWorkflowId } from '../../src/activities/alerts/evaluator/evaluator-sources';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAlertActivities } from '../../src/activities/alerts/alert-activities';
import { AesGcmPayloadCodec, codecDataConverter } from '../../src/codec';
import { findJobAlertProblems } from '../../src/client/jobs/job-alert-health';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { readEnv } from '../../src/config';
import { freePort } from '../../src/devserver/ports';
import { pipeline } from '../../src/pipeline';
import { createWorker } from '../../src/worker/create-worker';
import { logAlertSent } from '../../src/worker/run-events';
import type { JobAlertEvent } from '../../src/workflows/alert-types';
import { alertDeliveryWorkflowId, alertEvaluatorWorkflowId } from '../../src/workflows/alerts/evaluator-defs';
import {
  JOB_WATCHDOG_WORKFLOW_TYPE,
  reconfigureSignal,
  watchdogStateQuery,
  watchdogWorkflowId,
  type WatchdogState,
} from '../../src/workflows/alerts/watchdog-defs';
import {
  ALERT_DELIVERY_WORKFLOW_TYPE,
  ALERT_EVALUATOR_WORKFLOW_TYPE,
  evaluatorHeartbeat,
  waitForWaves,
  workflowTypesOn,
} from '../helpers/alert-evaluator';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import { killServer, startKillableServer, type KillableServer } from './killable-server';

const received: JobAlertEvent[] = [];
let hook: Server;
let hookUrl: string;
const postsOf = (jobId: string) => received.filter((e) => e.jobId === jobId);
const silentOf = (jobId: string) => postsOf(jobId).filter((e) => e.kind === 'silent');
const kindsOf = (jobId: string) => postsOf(jobId).map((e) => e.kind);

const steps = {
  async work(x: number) {
    return x + 1;
  },
};
const work = pipeline('watchdog-faults-work', { steps }).step('work');
/** Jobs whose next post to `/held` the webhook receives and leaves unanswered. */
const holding = new Set<string>();

let t: TestContext;
const children: ChildProcess[] = [];
const dirs: string[] = [];
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const event = JSON.parse(body) as JobAlertEvent;
      received.push(event);
      // Received, never answered: the sender dies before it hears back.
      if (req.url === '/held' && holding.delete(event.jobId)) return;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
  t = await connectTest('watchdog-faults');
});
/** SIGKILLs the processes still running and waits until they are gone. */
async function killAll(processes: ChildProcess[]): Promise<void> {
  await Promise.all(
    processes
      .filter((c) => c.exitCode === null && c.signalCode === null)
      .map((c) => new Promise((resolve) => (c.once('exit', resolve), c.kill('SIGKILL')))),
  );
}
afterAll(async () => {
  await killAll(children);
  for (const stop of stops) await stop();
  await t?.close();
  hook?.closeAllConnections();
  await new Promise((resolve) => hook?.close(resolve));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts test/chaos/watchdog-worker-process.ts (with the codec key when given); resolves once it polls.
 * `owned`: the test's own processes (killed at its end: another test's evaluator would read its jobs).
 */
async function startAlertProcess(
  owned: ChildProcess[],
  address: string,
  namespace: string,
  queue: string,
  key?: string,
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(__dirname, 'watchdog-worker-process.ts'),
      address,
      namespace,
      queue,
      inject('workflowBundlePath'),
      ...(key ? [key] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  owned.push(child);
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

/** A worker of the jobs' own queue, in this process (the jobs run once it polls). */
async function startJobWorker(
  connection: NativeConnection,
  namespace: string,
  taskQueue: string,
  codec?: AesGcmPayloadCodec,
) {
  const worker = await createWorker({
    connection,
    namespace,
    taskQueue,
    steps,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    ...(codec ? { codec } : {}),
  });
  const done = worker.run();
  const stop = async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await done;
  };
  stops.push(stop);
  return stop;
}

/** Jobs nobody runs yet (no worker polls their queue), each with a dead-man switch of its own length. */
async function createIdleJobs(
  scheduler: PipelineScheduler,
  prefix: string,
  withins: string[],
): Promise<string[]> {
  return Promise.all(
    withins.map((expectSuccessWithin, i) =>
      scheduler.schedule(work, {
        jobId: `${prefix}-${i}`,
        cron: '0 3 * * *',
        args: [i],
        expectSuccessWithin,
        onSilent: { webhook: { url: `${hookUrl}/silent` } },
      }),
    ),
  );
}

/** When each job's schedule was created (epoch ms): its dead-man clock starts there. */
async function createdAt(client: Client, jobIds: string[]): Promise<number[]> {
  return Promise.all(
    jobIds.map(async (id) => (await client.schedule.getHandle(id).describe()).info.createdAt.getTime()),
  );
}

/** Waits until the wall clock is past `at` (a deadline of a job, passing during an outage). */
async function pastTime(what: string, at: number): Promise<void> {
  await waitFor(
    what,
    async () => (Date.now() > at ? true : undefined),
    Math.max(0, at - Date.now()) + 10_000,
  );
}

/** Waits until every job has posts of these kinds at least. */
async function allPosted(jobIds: string[], kind: JobAlertEvent['kind'], timeoutMs: number): Promise<void> {
  await waitFor(
    `a ${kind} alert of every job`,
    async () => (jobIds.every((id) => postsOf(id).some((e) => e.kind === kind)) ? true : undefined),
    timeoutMs,
  );
}

/** Triggers each job and waits for a completed run of each. */
async function runOnce(scheduler: PipelineScheduler, jobIds: string[]): Promise<void> {
  await Promise.all(jobIds.map((id) => scheduler.triggerJob(id)));
  await waitFor(
    'a completed run of every job',
    async () => {
      const done = await Promise.all(
        jobIds.map(async (id) => (await scheduler.getHistory(id)).some((r) => r.status === 'completed')),
      );
      return done.every(Boolean) ? true : undefined;
    },
    60_000,
  );
}

/**
 * Per job, the alerts of its first silent period (the `silent` and the `recovered` that closed it, of the
 * same clock start), the causes posted more than once, and whether every other post is a later silent
 * period (the job idle again after its run).
 */
function firstPeriods(jobIds: string[]) {
  return jobIds.map((jobId) => {
    const posts = postsOf(jobId);
    const since = posts[0]?.lastSuccessAt ?? '';
    const causes = posts.map((e) => `${e.kind}@${e.lastSuccessAt}`);
    return {
      jobId,
      first: posts.filter((e) => e.lastSuccessAt === since).map((e) => e.kind),
      doubled: causes.filter((c, i) => causes.indexOf(c) !== i),
      laterSilentOnly: posts
        .filter((e) => e.lastSuccessAt !== since)
        .every((e) => e.kind === 'silent' && Date.parse(e.lastSuccessAt!) > Date.parse(since)),
    };
  });
}
const silentThenRecovered = (jobIds: string[]) =>
  jobIds.map((jobId) => ({ jobId, first: ['silent', 'recovered'], doubled: [], laterSilentOnly: true }));

/** The delivery workflow of each alert posted for these jobs (derived from its cause), in post order. */
async function deliveriesOf(client: Client, jobIds: string[]): Promise<string[]> {
  return Promise.all(
    jobIds.flatMap(postsOf).map(async (e) => {
      const id = alertDeliveryWorkflowId({
        kind: e.kind as 'silent' | 'recovered',
        jobId: e.jobId,
        lastSuccessAt: e.lastSuccessAt!,
      });
      return `${e.kind} ${e.jobId}: ${(await client.workflow.getHandle(id).describe()).type}`;
    }),
  );
}

// The two tests of a group run side by side (each on queues and processes of its own): the file's wall
// time is that of the longer.
describe.concurrent('the alert worker process SIGKILLed', () => {
  it('while one job is silent and three count down: a new process raises each silent once, and recovered once they run', async () => {
    const mine: ChildProcess[] = [];
    const queue = `${t.taskQueue}-killed`;
    const jobQueue = `${t.taskQueue}-killed-jobs`;
    const scheduler = new PipelineScheduler(t.client, { taskQueue: jobQueue, watchdogTaskQueue: queue });
    const first = await startAlertProcess(mine, inject('temporalAddress'), t.namespace, queue);
    // One is silent before the kill, two deadlines pass while the worker is down, one after it is back.
    const jobIds = await createIdleJobs(scheduler, t.uid('killed'), ['3s', '10s', '11s', '22s']);
    try {
      const created = await createdAt(t.client, jobIds);
      const paged = await waitFor('the first job silent', async () => silentOf(jobIds[0]!)[0], 30_000);
      // Its delivery done, not only posted: a kill between the POST and the report of its end would have
      // it posted again (at least once, as the test "in the middle of a POST" below shows).
      await t.client.workflow
        .getHandle(
          alertDeliveryWorkflowId({ kind: 'silent', jobId: jobIds[0]!, lastSuccessAt: paged.lastSuccessAt! }),
        )
        .result();
      await waitFor('the evaluator to watch the four jobs', async () => {
        const hb = await evaluatorHeartbeat(t.client, queue);
        return (hb?.jobs ?? 0) >= 4 ? true : undefined;
      });
      expect(jobIds.slice(1).flatMap(postsOf)).toEqual([]);
      await kill(first);
      await pastTime('two deadlines to pass with no alert worker', created[2]! + 11_000 + 1_000);
      expect(jobIds.slice(1).flatMap(postsOf)).toEqual([]);

      await startAlertProcess(mine, inject('temporalAddress'), t.namespace, queue);
      await allPosted(jobIds, 'silent', 60_000);
      await startJobWorker(t.nativeConnection, t.namespace, jobQueue);
      await runOnce(scheduler, jobIds);
      await allPosted(jobIds, 'recovered', 30_000);
      await waitForWaves(t.client, queue, 3);
      expect(firstPeriods(jobIds)).toEqual(silentThenRecovered(jobIds));
      // Each alert is one delivery workflow, named by its cause; beside them only the evaluator, whose one
      // run survived the kill: no per-job workflow.
      const deliveries = await deliveriesOf(t.client, jobIds);
      expect(deliveries.every((d) => d.endsWith(`: ${ALERT_DELIVERY_WORKFLOW_TYPE}`))).toBe(true);
      const types = await workflowTypesOn(t.client, queue);
      expect(Object.keys(types).sort()).toEqual(
        [ALERT_DELIVERY_WORKFLOW_TYPE, ALERT_EVALUATOR_WORKFLOW_TYPE].sort(),
      );
      expect(types[ALERT_EVALUATOR_WORKFLOW_TYPE]).toBe(1);
    } finally {
      await killAll(mine);
      await Promise.all(jobIds.map((id) => scheduler.removeJob(id)));
    }
  }, 150_000);

  it('while an occurrence the server drops passes: the new process raises missed (not-started) for it, once', async () => {
    const mine: ChildProcess[] = [];
    const queue = `${t.taskQueue}-dropped`;
    const jobQueue = `${t.taskQueue}-dropped-jobs`;
    const scheduler = new PipelineScheduler(t.client, { taskQueue: jobQueue, watchdogTaskQueue: queue });
    await startJobWorker(t.nativeConnection, t.namespace, jobQueue);
    const first = await startAlertProcess(mine, inject('temporalAddress'), t.namespace, queue);
    const jobId = t.uid('dropped');
    await scheduler.scheduleInterval(work, {
      jobId,
      every: '10s',
      args: [1],
      onMissed: { webhook: { url: `${hookUrl}/missed` } },
    });
    let blocker: { terminate: (reason: string) => Promise<unknown> } | undefined;
    try {
      const d = await t.client.schedule.getHandle(jobId).describe();
      if (d.action.type !== 'startWorkflow') throw new Error('not a workflow action');
      const at = d.info.nextActionTimes.find((time) => time.getTime() >= Date.now() + 15_000)!;
      // A workflow holding the run's id: the server drops that start and counts it nowhere.
      blocker = await t.client.workflow.start('tflow-test-blocker', {
        workflowId: scheduledRunWorkflowId(d.action.workflowId, at.getTime()),
        taskQueue: `${t.taskQueue}-nobody`,
      });
      // Killed once its heartbeat carries the time, before the time: no evaluator runs when it passes.
      await waitFor('the evaluator to carry the coming time', async () => {
        const hb = await evaluatorHeartbeat(t.client, queue);
        return hb?.expected?.[jobId]?.t.includes(at.getTime()) ? true : undefined;
      });
      expect(Date.now()).toBeLessThan(at.getTime());
      await kill(first);
      await pastTime(
        'the time, the next one and the margin to pass with no alert worker',
        at.getTime() + 10_000 + 30_000,
      );
      expect(postsOf(jobId)).toEqual([]);

      await startAlertProcess(mine, inject('temporalAddress'), t.namespace, queue);
      const [event] = await waitFor(
        'the not-started alert',
        async () => (postsOf(jobId).length > 0 ? postsOf(jobId) : undefined),
        60_000,
      );
      expect(event).toMatchObject({
        kind: 'missed',
        reason: 'not-started',
        nominalTimes: [at.toISOString()],
      });
      await waitForWaves(t.client, queue, 4);
      expect(postsOf(jobId)).toHaveLength(1);
      // The server counted nothing: the alert is the only trace of the lost time.
      const after = await t.client.schedule.getHandle(jobId).describe();
      expect(after.info.numActionsMissedCatchupWindow).toBe(0);
    } finally {
      await blocker?.terminate('test over');
      await killAll(mine);
      await scheduler.removeJob(jobId);
    }
  }, 150_000);

  it('in the middle of a POST: the one delivery is retried, the same event posted again, nothing raised again', async () => {
    const mine: ChildProcess[] = [];
    const queue = `${t.taskQueue}-mid-post`;
    const scheduler = new PipelineScheduler(t.client, {
      taskQueue: `${t.taskQueue}-nobody`,
      watchdogTaskQueue: queue,
    });
    const worker = await startAlertProcess(mine, inject('temporalAddress'), t.namespace, queue);
    const jobId = t.uid('mid-post');
    holding.add(jobId);
    // A 2 s webhook timeout: the attempt the kill cut short is timed out by the server 7 s after it began.
    await scheduler.schedule(work, {
      jobId,
      cron: '0 3 * * *',
      expectSuccessWithin: '3s',
      onSilent: { webhook: { url: `${hookUrl}/held`, timeout: '2s' } },
    });
    try {
      const [first] = await waitFor(
        'the page posted',
        async () => silentOf(jobId)[0] && silentOf(jobId),
        30_000,
      );
      await kill(worker);
      await startAlertProcess(mine, inject('temporalAddress'), t.namespace, queue);
      await waitFor(
        'the page posted again',
        async () => (silentOf(jobId).length > 1 ? true : undefined),
        60_000,
      );
      const delivery = await waitFor('the delivery to complete', async () => {
        const ids: string[] = [];
        for await (const wf of t.client.workflow.list({
          query: `TaskQueue = '${queue}' AND ExecutionStatus = 'Completed'`,
        })) {
          if (wf.type === ALERT_DELIVERY_WORKFLOW_TYPE && wf.workflowId.includes(jobId))
            ids.push(wf.workflowId);
        }
        return ids.length > 0 ? ids : undefined;
      });
      await waitForWaves(t.client, queue, 3);
      const history = await t.client.workflow.getHandle(delivery[0]!).fetchHistory();
      const raised = (history.events ?? []).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'tflowDeliverAlert',
      ).length;
      // One alert raised (one delivery workflow, one activity), its delivery retried once: two posts of the
      // same event (same `at`).
      expect({ deliveries: delivery.length, raised, posts: postsOf(jobId).length }).toEqual({
        deliveries: 1,
        raised: 1,
        posts: 2,
      });
      expect(silentOf(jobId)[1]).toEqual(first);
    } finally {
      await killAll(mine);
      await scheduler.removeJob(jobId);
    }
  }, 120_000);
});

describe('the upgrade from per-job watchdogs', () => {
  it('retires them: no second silent for a watchdog that paged, recovered when the job runs, the other silent on its clock', async () => {
    const mine: ChildProcess[] = [];
    const queue = `${t.taskQueue}-upgrade`;
    const jobQueue = `${t.taskQueue}-upgrade-jobs`;
    const scheduler = new PipelineScheduler(t.client, { taskQueue: jobQueue, watchdogTaskQueue: queue });
    const jobIds = await createIdleJobs(scheduler, t.uid('upgrade'), ['4s', '20s']);
    try {
      // The writes made sure of the queue's evaluator (no worker polls the queue yet); the release before
      // had none: it goes, so that only the old watchdogs run on the queue.
      await t.client.workflow
        .getHandle(alertEvaluatorWorkflowId(queue))
        .terminate('the release before had none');
      // Each job's watchdog, started as the release before's client did (job-watchdog.ts).
      for (const jobId of jobIds) {
        const initial: WatchdogState = { jobId, lastSuccessAt: new Date().toISOString(), silent: false };
        await t.client.workflow.signalWithStart(JOB_WATCHDOG_WORKFLOW_TYPE, {
          workflowId: watchdogWorkflowId(jobId),
          taskQueue: queue,
          args: [initial],
          signal: reconfigureSignal,
        });
      }
      // The release before's alert worker: the watchdogs and their deliveries, no evaluator.
      const legacy = await Worker.create({
        connection: t.nativeConnection,
        namespace: t.namespace,
        taskQueue: queue,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        activities: createAlertActivities({ handlers: {}, logAlertSent }),
      });
      const legacyDone = legacy.run();
      stops.push(async () => {
        if (legacy.getState() === 'RUNNING') legacy.shutdown();
        await legacyDone;
      });
      const [paged] = await waitFor(
        'the first watchdog to page',
        async () => silentOf(jobIds[0]!)[0] && silentOf(jobIds[0]!),
        30_000,
      );
      const states = await waitFor('both watchdogs at rest, the first silent', async () => {
        const s = await Promise.all(
          jobIds.map((id) => t.client.workflow.getHandle(watchdogWorkflowId(id)).query(watchdogStateQuery)),
        );
        const { raw } = await t.client.workflow.getHandle(watchdogWorkflowId(jobIds[0]!)).describe();
        const idle = (raw.pendingActivities ?? []).length === 0 && !raw.pendingWorkflowTask;
        return idle && s[0]!.silent && !s[1]!.silent && s[1]!.config?.expectSuccessWithinMs === 20_000
          ? s
          : undefined;
      });
      expect(paged!.lastSuccessAt).toBe(states[0]!.lastSuccessAt);
      legacy.shutdown();
      await legacyDone;

      await startAlertProcess(mine, inject('temporalAddress'), t.namespace, queue);
      await waitFor('both watchdogs retired', async () => {
        const s = await Promise.all(
          jobIds.map(
            async (id) => (await t.client.workflow.getHandle(watchdogWorkflowId(id)).describe()).status.name,
          ),
        );
        return s.every((x) => x === 'TERMINATED') ? true : undefined;
      });
      await waitFor('the second job silent', async () => silentOf(jobIds[1]!)[0], 60_000);
      // Its clock is its watchdog's: the deadline it had before the upgrade.
      expect(silentOf(jobIds[1]!)[0]!.lastSuccessAt).toBe(states[1]!.lastSuccessAt);
      await startJobWorker(t.nativeConnection, t.namespace, jobQueue);
      await runOnce(scheduler, [jobIds[0]!]);
      await allPosted([jobIds[0]!], 'recovered', 30_000);
      await waitForWaves(t.client, queue, 3);
      // The first job: its watchdog's silent period closed by one recovered, no second silent for it (a
      // later one, the job idle again after its run, is a period of its own); the second: one silent.
      expect(firstPeriods([jobIds[0]!])).toEqual(silentThenRecovered([jobIds[0]!]));
      expect(kindsOf(jobIds[1]!)).toEqual(['silent']);
      expect(postsOf(jobIds[0]!)[1]!.lastSuccessAt).toBe(paged!.lastSuccessAt);
    } finally {
      await killAll(mine);
      await Promise.all(jobIds.map((id) => scheduler.removeJob(id)));
    }
  }, 150_000);
});

describe.concurrent('the Temporal server process SIGKILLed under watched jobs', () => {
  it('started again on the same SQLite file: the alerts resume, none lost, none doubled', async () => {
    const mine: ChildProcess[] = [];
    const home = mkdtempSync(path.join(tmpdir(), 'tflow-watchdog-faults-'));
    dirs.push(home);
    const cli = inject('temporalCli') || readEnv().temporalCli!;
    const port = await freePort();
    const dbFile = path.join(home, 'watchdog-faults.db');
    let server: KillableServer = await startKillableServer(cli, port, dbFile);
    const queue = 'watchdog-faults-alerts';
    const jobQueue = 'watchdog-faults-jobs';
    const connections: Connection[] = [];
    const connect = async () => {
      const connection = await Connection.connect({ address: server.address });
      connections.push(connection);
      return new Client({ connection, namespace: server.namespace });
    };
    try {
      let client = await connect();
      await startAlertProcess(mine, server.address, server.namespace, queue);
      let scheduler = new PipelineScheduler(client, { taskQueue: jobQueue, watchdogTaskQueue: queue });
      // One is silent before the kill, one deadline passes while the server is down, one after it is back.
      const jobIds = await createIdleJobs(scheduler, 'server-killed', ['3s', '12s', '30s']);
      const created = await createdAt(client, jobIds);
      const [silent] = await waitFor(
        'the first job silent',
        async () => silentOf(jobIds[0]!)[0] && silentOf(jobIds[0]!),
        30_000,
      );
      // Its delivery recorded as done before the crash (else the crash would only make it post again).
      await waitFor('its delivery to complete', async () => {
        const d = await client.workflow
          .getHandle(`tflow-alert:silent:${silent!.lastSuccessAt}:${jobIds[0]}`)
          .describe();
        return d.status.name === 'COMPLETED' ? true : undefined;
      });
      for (const c of connections.splice(0)) await c.close();
      await killServer(server);
      await pastTime('the second deadline to pass with no server', created[1]! + 12_000 + 1_000);
      expect(jobIds.slice(1).flatMap(postsOf)).toEqual([]);
      server = await startKillableServer(cli, port, dbFile);
      client = await connect();
      scheduler = new PipelineScheduler(client, { taskQueue: jobQueue, watchdogTaskQueue: queue });
      await allPosted(jobIds, 'silent', 60_000);
      const native = await NativeConnection.connect({ address: server.address });
      stops.push(() => native.close());
      const stopJobs = await startJobWorker(native, server.namespace, jobQueue);
      await runOnce(scheduler, jobIds);
      await allPosted(jobIds, 'recovered', 30_000);
      await waitForWaves(client, queue, 3);
      await stopJobs();
      expect(firstPeriods(jobIds)).toEqual(silentThenRecovered(jobIds));
      expect(
        (await deliveriesOf(client, jobIds)).every((d) => d.endsWith(`: ${ALERT_DELIVERY_WORKFLOW_TYPE}`)),
      ).toBe(true);
    } finally {
      await killAll(mine);
      for (const c of connections) await c.close();
      await killServer(server);
    }
  }, 180_000);
});

/**
 * How long the alert worker runs without the codec key. The issue asks 10 minutes; npm test keeps 25 s,
 * as the evaluator's behaviour does not depend on the length (a read that fails is retried, backing off
 * to once a minute, for as long as it fails). ALERT_KEYLESS_MS=600000 runs the 10 minutes.
 */
const KEYLESS_MS = Number(process.env.ALERT_KEYLESS_MS ?? 25_000);

// Side by side with the server's crash (its own server).
describe.concurrent('the alert worker started without the codec key, then with it', () => {
  it(
    'is reported by the job-alerts check while keyless, then raises the silent alert that came due meanwhile, once',
    async () => {
      const mine: ChildProcess[] = [];
      const keyId = `faults-${randomBytes(4).toString('hex')}`;
      const key = randomBytes(32);
      const codec = new AesGcmPayloadCodec({ keys: { [keyId]: key } });
      const client = new Client({
        connection: t.connection,
        namespace: t.namespace,
        dataConverter: codecDataConverter(codec),
      });
      const queue = `${t.taskQueue}-keyless`;
      const evaluatorId = alertEvaluatorWorkflowId(queue);
      const scheduler = new PipelineScheduler(client, {
        taskQueue: `${t.taskQueue}-nobody`,
        watchdogTaskQueue: queue,
      });
      const keyless = await startAlertProcess(mine, inject('temporalAddress'), t.namespace, queue);
      // One deadline passes while the worker is keyless, one after it has the key.
      const jobIds = await createIdleJobs(scheduler, t.uid('keyless'), [
        '8s',
        `${Math.round(KEYLESS_MS / 1000) + 15}s`,
      ]);
      try {
        const created = await createdAt(client, jobIds);
        // `tflow doctor`'s job-alerts check names the jobs their evaluator cannot read.
        const ofQueue = async () =>
          (await findJobAlertProblems(client)).filter(
            (p) =>
              p.jobId === evaluatorId ||
              (jobIds.includes(p.jobId) && p.summary.includes(`evaluator ${evaluatorId} has`)),
          );
        const problems = await waitFor(
          'the job-alerts check to name both jobs',
          async () => {
            const found = await ofQueue();
            return found.length === jobIds.length ? found : undefined;
          },
          60_000,
        );
        expect(problems).toEqual(
          jobIds.map((jobId): unknown =>
            expect.objectContaining({
              jobId,
              kind: 'alerts-unevaluable',
              summary: expect.stringContaining('codec key'),
            }),
          ),
        );
        await pastTime('the keyless window to end', created[0]! + KEYLESS_MS);
        expect(jobIds.flatMap(postsOf)).toEqual([]);

        await kill(keyless);
        await startAlertProcess(
          mine,
          inject('temporalAddress'),
          t.namespace,
          queue,
          `${keyId}:${key.toString('hex')}`,
        );
        await waitFor(
          'the silent alert that came due meanwhile',
          async () => silentOf(jobIds[0]!)[0],
          60_000,
        );
        await allPosted(jobIds, 'silent', 90_000);
        await waitForWaves(client, queue, 3);
        expect(jobIds.map(kindsOf)).toEqual([['silent'], ['silent']]);
        expect(await ofQueue()).toEqual([]);
      } finally {
        await killAll(mine);
        await Promise.all(jobIds.map((id) => scheduler.removeJob(id)));
      }
    },
    KEYLESS_MS + 150_000,
  );

  // The job's alert queue is in clear in its listed record (TflowJob): the evaluator of another queue
  // leaves it alone instead of failing to decode it (it reported it to doctor before that).
  it('names no job to the job-alerts check for the evaluator of another queue, which cannot read it', async () => {
    const mine: ChildProcess[] = [];
    const keyId = `faults-${randomBytes(4).toString('hex')}`;
    const key = randomBytes(32);
    const client = new Client({
      connection: t.connection,
      namespace: t.namespace,
      dataConverter: codecDataConverter(new AesGcmPayloadCodec({ keys: { [keyId]: key } })),
    });
    const served = `${t.taskQueue}-served`;
    const other = `${t.taskQueue}-other-team`;
    const scheduler = new PipelineScheduler(client, {
      taskQueue: `${t.taskQueue}-nobody`,
      watchdogTaskQueue: served,
    });
    await startAlertProcess(
      mine,
      inject('temporalAddress'),
      t.namespace,
      served,
      `${keyId}:${key.toString('hex')}`,
    );
    // Another alert queue of the namespace, whose worker has not this key (another team's jobs).
    await startAlertProcess(mine, inject('temporalAddress'), t.namespace, other);
    const [jobId] = await createIdleJobs(scheduler, t.uid('served'), ['1h']);
    try {
      await waitFor(
        'its evaluator to watch the job',
        async () => {
          const mineHb = await evaluatorHeartbeat(client, served);
          return (mineHb?.jobs ?? 0) >= 1 && mineHb?.failing?.[jobId!] === undefined ? true : undefined;
        },
        60_000,
      );
      // The other queue's evaluator evaluates waves past it without reading it (its key is not there).
      await waitForWaves(client, other, 3);
      expect((await evaluatorHeartbeat(client, other))?.failing?.[jobId!]).toBeUndefined();
      // Its alerts are evaluated (by its own queue's evaluator): the check names nothing for it.
      expect((await findJobAlertProblems(client)).filter((p) => p.jobId === jobId)).toEqual([]);
    } finally {
      await killAll(mine);
      await scheduler.removeJob(jobId!);
    }
  }, 120_000);
});

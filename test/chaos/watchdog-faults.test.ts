/*
 * A dead-man page is raised exactly once per silent period across real faults: the watchdog worker
 * process SIGKILLed while the watchdogs sleep toward their deadlines (some pass while it is down, some
 * after it is back), and the Temporal server process itself SIGKILLed under watched jobs and started
 * again on the same SQLite file. Each job's silent page is counted where it lands, the webhook: none lost
 * (every job's page comes), none doubled (each watchdog is then seen at rest, its delivery done and
 * nothing more scheduled, with one page). A worker killed in the middle of a POST is the one case where
 * the webhook hears twice: the delivery is retried (at least once), the same event, for one alert raised.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { readEnv } from '../../src/config';
import { freePort } from '../../src/devserver/ports';
import { pipeline } from '../../src/pipeline';
import type { JobAlertEvent } from '../../src/workflows/alert-types';
import {
  watchdogStateQuery,
  watchdogWorkflowId,
  type WatchdogState,
} from '../../src/workflows/alerts/watchdog-defs';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import { killServer, startKillableServer, type KillableServer } from './killable-server';

const received: JobAlertEvent[] = [];
let hook: Server;
let hookUrl: string;
const silentOf = (jobId: string) => received.filter((e) => e.jobId === jobId && e.kind === 'silent');

const work = pipeline('watchdog-faults-work', { steps: ['work'] }).step('work');
/** Jobs whose next post to `/held` the webhook receives and leaves unanswered. */
const holding = new Set<string>();

let t: TestContext;
const children: ChildProcess[] = [];
const dirs: string[] = [];

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
afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await t?.close();
  hook?.closeAllConnections();
  await new Promise((resolve) => hook?.close(resolve));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Starts test/chaos/watchdog-worker-process.ts and resolves once it polls the watchdog queue. */
async function startWatchdogProcess(
  address: string,
  namespace: string,
  queue: string,
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
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`watchdog worker process exited early with ${code}`)));
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
}

/** Jobs nobody runs (no worker polls their queue), each with a dead-man switch of its own length. */
async function createSilentJobs(
  scheduler: PipelineScheduler,
  prefix: string,
  withins: string[],
): Promise<string[]> {
  return Promise.all(
    withins.map((expectSuccessWithin, i) =>
      scheduler.schedule(work, {
        jobId: `${prefix}-${i}`,
        cron: '0 3 * * *',
        expectSuccessWithin,
        onSilent: { webhook: { url: `${hookUrl}/silent` } },
      }),
    ),
  );
}

/** Each job's watchdog state once it has read its job: it sleeps toward lastSuccessAt + the switch. */
async function watching(client: Client, jobIds: string[]): Promise<Map<string, WatchdogState>> {
  return new Map(
    await Promise.all(
      jobIds.map(
        async (jobId) =>
          [
            jobId,
            await waitFor(`the watchdog of ${jobId} to read its job`, async () => {
              const state = await client.workflow
                .getHandle(watchdogWorkflowId(jobId))
                .query(watchdogStateQuery);
              return state.config?.expectSuccessWithinMs ? state : undefined;
            }),
          ] as const,
      ),
    ),
  );
}

const deadlineOf = (s: WatchdogState) => Date.parse(s.lastSuccessAt) + s.config!.expectSuccessWithinMs!;

/**
 * Waits until every job has its silent page and its watchdog is at rest after it: silent, its delivery
 * done, no activity or workflow task pending (nothing more is raised until a timer or signal wakes it,
 * and the jobs have no timer left before their next run tomorrow). Then the pages can be counted. False
 * when that did not happen within `timeoutMs` (the pages then say which job has none).
 */
async function pagedAndAtRest(client: Client, jobIds: string[], timeoutMs: number): Promise<boolean> {
  return waitFor(
    'every job paged and its watchdog at rest',
    async () => {
      if (jobIds.some((id) => silentOf(id).length === 0)) return undefined;
      for (const jobId of jobIds) {
        const handle = client.workflow.getHandle(watchdogWorkflowId(jobId));
        const { raw } = await handle.describe();
        if ((raw.pendingActivities ?? []).length > 0 || raw.pendingWorkflowTask) return undefined;
        if (!(await handle.query(watchdogStateQuery)).silent) return undefined;
      }
      return true;
    },
    timeoutMs,
  ).then(
    () => true,
    () => false,
  );
}

/** Per job: how many silent pages came, and whether each counts from the watchdog's clock start. */
function pages(jobIds: string[], states: Map<string, WatchdogState>) {
  return jobIds.map((jobId) => ({
    jobId,
    silent: silentOf(jobId).length,
    since: silentOf(jobId).map((e) => e.lastSuccessAt === states.get(jobId)!.lastSuccessAt),
  }));
}

/** What {@link pages} must say: one page per job, counting from the watchdog's clock start. */
const once = (jobIds: string[]) => jobIds.map((jobId) => ({ jobId, silent: 1, since: [true] }));

describe('the watchdog worker process SIGKILLed while its watchdogs sleep', () => {
  it('delivers each due silent page exactly once after it is started again', async () => {
    const queue = `${t.taskQueue}-watchdog`;
    const scheduler = new PipelineScheduler(t.client, {
      taskQueue: `${t.taskQueue}-nobody`,
      watchdogTaskQueue: queue,
    });
    const worker = await startWatchdogProcess(inject('temporalAddress'), t.namespace, queue);
    // Three deadlines pass while the worker is down, two after it is back.
    const jobIds = await createSilentJobs(scheduler, t.uid('killed'), ['15s', '16s', '17s', '28s', '30s']);
    try {
      const states = await watching(t.client, jobIds);
      expect(received.filter((e) => jobIds.includes(e.jobId))).toEqual([]);
      await kill(worker);
      const deadlines = jobIds.map((id) => deadlineOf(states.get(id)!));
      // The outage: the worker stays down until the first three deadlines have passed.
      await waitFor('three deadlines to pass with no watchdog worker', async () =>
        Date.now() > deadlines[2]! + 1_000 ? true : undefined,
      );
      expect(received.filter((e) => jobIds.includes(e.jobId))).toEqual([]);
      await startWatchdogProcess(inject('temporalAddress'), t.namespace, queue);
      const atRest = await pagedAndAtRest(t.client, jobIds, 60_000);
      expect({ atRest, pages: pages(jobIds, states) }).toEqual({ atRest: true, pages: once(jobIds) });
    } finally {
      await Promise.all(jobIds.map((id) => scheduler.removeJob(id)));
    }
  }, 120_000);
});

describe('the watchdog worker process SIGKILLed while it posts a page', () => {
  it('posts the same page again, identical, for the one alert it raised (receivers dedupe on jobId, kind and at)', async () => {
    const queue = `${t.taskQueue}-mid-post`;
    const scheduler = new PipelineScheduler(t.client, {
      taskQueue: `${t.taskQueue}-nobody`,
      watchdogTaskQueue: queue,
    });
    const worker = await startWatchdogProcess(inject('temporalAddress'), t.namespace, queue);
    const jobId = t.uid('mid-post');
    holding.add(jobId);
    // A 2 s webhook timeout: the attempt the kill cut short is timed out by the server 7 s after it began.
    await scheduler.schedule(work, {
      jobId,
      cron: '0 3 * * *',
      expectSuccessWithin: '8s',
      onSilent: { webhook: { url: `${hookUrl}/held`, timeout: '2s' } },
    });
    try {
      await waitFor('the page posted', async () => silentOf(jobId)[0], 60_000);
      await kill(worker);
      await startWatchdogProcess(inject('temporalAddress'), t.namespace, queue);
      const atRest = await waitFor(
        'the page posted again and the watchdog at rest',
        async () => (silentOf(jobId).length > 1 ? pagedAndAtRest(t.client, [jobId], 30_000) : undefined),
        60_000,
      ).catch(() => false);
      const history = await t.client.workflow.getHandle(watchdogWorkflowId(jobId)).fetchHistory();
      const raised = (history.events ?? []).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'tflowDeliverAlert',
      ).length;
      // One alert raised, its delivery retried once: two posts of the same event (same `at`).
      expect({ atRest, raised, posts: silentOf(jobId).length }).toEqual({
        atRest: true,
        raised: 1,
        posts: 2,
      });
      expect(silentOf(jobId)[1]).toEqual(silentOf(jobId)[0]);
    } finally {
      await scheduler.removeJob(jobId);
    }
  }, 120_000);
});

describe('the Temporal server process SIGKILLed under watched jobs', () => {
  it('started again on the same SQLite file, each silent page still comes once', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'tflow-watchdog-faults-'));
    dirs.push(home);
    const cli = inject('temporalCli') || readEnv().temporalCli!;
    const port = await freePort();
    const dbFile = path.join(home, 'watchdog-faults.db');
    let server: KillableServer = await startKillableServer(cli, port, dbFile);
    const queue = 'watchdog-faults-watchdog';
    const connections: Connection[] = [];
    const connect = async () => {
      const connection = await Connection.connect({ address: server.address });
      connections.push(connection);
      return new Client({ connection, namespace: server.namespace });
    };
    try {
      let client = await connect();
      await startWatchdogProcess(server.address, server.namespace, queue);
      const scheduler = new PipelineScheduler(client, { taskQueue: 'nobody', watchdogTaskQueue: queue });
      // One deadline passes while the server is down, one after it is back.
      const jobIds = await createSilentJobs(scheduler, 'server-killed', ['15s', '32s']);
      const states = await watching(client, jobIds);
      const deadlines = jobIds.map((id) => deadlineOf(states.get(id)!));
      for (const c of connections.splice(0)) await c.close();
      await killServer(server);
      // The outage: the server stays down until the first deadline has passed.
      await waitFor('the first deadline to pass with no server', async () =>
        Date.now() > deadlines[0]! + 1_000 ? true : undefined,
      );
      server = await startKillableServer(cli, port, dbFile);
      client = await connect();
      const atRest = await pagedAndAtRest(client, jobIds, 90_000);
      expect({ atRest, pages: pages(jobIds, states) }).toEqual({ atRest: true, pages: once(jobIds) });
    } finally {
      for (const c of connections) await c.close();
      await killServer(server);
    }
  }, 180_000);
});

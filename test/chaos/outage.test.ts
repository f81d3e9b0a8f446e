/*
 * A real outage: the worker process is killed across several fire times of jobs firing every 2 s with a
 * 3 s misfire grace, and a new worker process comes back about 10 s later. Checked for coalesce true
 * (overlap SKIP: the waiting run stands for the latest missed occurrence), coalesce false (BUFFER_ALL:
 * each missed occurrence gets its own run; those within the grace when the worker came back run, in
 * order), and once more with the Temporal server itself restarted during the outage (its own dev server
 * on a SQLite file).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { PipelineScheduler } from '../../src/client/pipeline-scheduler';
import type { JobRun } from '../../src/client/run-types';
import { readEnv } from '../../src/config';
import { DevServer } from '../../src/devserver/dev-server';
import { pipeline } from '../../src/pipeline';
import type { PipelineRunResult } from '../../src/workflows/run-types';
import { waitFor } from '../helpers/wait-for';
import { firstTaskAt, killWorkerProcess, startWorkerProcess, type WorkerTarget } from './outage-env';
import { checkOutage, EVERY_MS, fireAtOrBefore, type Jobs, type Outage } from './outage-checks';

const OUTAGE_MS = 10_000;

const children: ChildProcess[] = [];
const dirs: string[] = [];
let markerDir: string;

beforeAll(() => {
  markerDir = mkdtempSync(path.join(tmpdir(), 'tflow-outage-'));
  dirs.push(markerDir);
});
afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs the outage on `client`'s server: jobs created, a worker until every job has run once, the worker
 * killed just after an occurrence, `duringOutage` (e.g. a server restart, returning the client to use
 * afterwards), about 10 s without a worker, then a new worker until every missed occurrence is settled.
 */
async function runOutage(
  connect: () => Promise<Client>,
  target: Omit<WorkerTarget, 'markerDir' | 'bundlePath'>,
  duringOutage?: () => Promise<void>,
): Promise<Outage> {
  const worker: WorkerTarget = { ...target, markerDir, bundlePath: inject('workflowBundlePath') };
  let client = await connect();
  let scheduler = new PipelineScheduler(client, { taskQueue: target.taskQueue });
  const p = pipeline('outage', { steps: ['first'] }).step('first');
  const common = { every: '2s', misfireGraceTime: '3s', args: [1] };
  const suffix = target.taskQueue.slice(-8);
  const jobs: Jobs = {
    latest: await scheduler.scheduleInterval(p, {
      ...common,
      jobId: `outage-latest-${suffix}`,
      coalesce: true,
    }),
    each: await scheduler.scheduleInterval(p, { ...common, jobId: `outage-each-${suffix}`, coalesce: false }),
    ended: await scheduler.scheduleInterval(p, {
      ...common,
      jobId: `outage-ended-${suffix}`,
      coalesce: true,
    }),
  };
  const ids: string[] = [jobs.latest, jobs.each, jobs.ended];
  const first = await startWorkerProcess(worker);
  children.push(first);

  // Kill the worker in a quiet moment: every job ran the same occurrence, no run is open, and the next
  // occurrence is far enough away that the kill lands before it.
  await waitFor(
    'a moment when every job has run and none is running',
    async () => {
      const described = await Promise.all(ids.map((id) => scheduler.getJob(id)));
      const last = described.map((j) => j.recentRuns[0]?.scheduledAt.getTime());
      const quiet =
        described.every((j) => !j.foreign && j.counters?.running === 0) &&
        last[0] !== undefined &&
        last.every((t) => t === last[0]) &&
        Date.now() < last[0] + EVERY_MS - 700;
      return quiet ? true : undefined;
    },
    30_000,
  );
  await killWorkerProcess(first);
  const down = Date.now();
  const firstMissed = fireAtOrBefore(down) + EVERY_MS;
  // The third job stops firing two occurrences into the outage.
  await scheduler.modifyJob(jobs.ended, { endAt: new Date(firstMissed + 2 * EVERY_MS + 500) });

  await waitFor(
    'the first missed occurrence of every job to be started (and wait for a worker)',
    async () => {
      const described = await Promise.all(ids.map((id) => scheduler.getJob(id)));
      return described.every((j) => !j.foreign && j.counters?.running === 1) ? true : undefined;
    },
    10_000,
  );
  if (duringOutage) {
    await duringOutage();
    client = await connect();
    scheduler = new PipelineScheduler(client, { taskQueue: target.taskQueue });
  }
  // The outage itself is a duration on the clock; everything after is asserted on observed events.
  await new Promise((r) => setTimeout(r, Math.max(0, down + OUTAGE_MS - Date.now())));
  const back = Date.now();
  children.push(await startWorkerProcess(worker));
  const ready = Date.now();

  const settled = (runs: JobRun[]) =>
    runs.filter((r) => r.scheduledAt && r.scheduledAt.getTime() > down && r.scheduledAt.getTime() <= ready);
  const out = { down, back, ready } as Outage;
  out.runs = {} as Outage['runs'];
  out.skippedOverlap = {} as Outage['skippedOverlap'];
  out.missedCatchupWindow = {} as Outage['missedCatchupWindow'];
  out.results = {} as Outage['results'];
  for (const [key, id] of Object.entries(jobs) as [keyof Jobs, string][]) {
    const runs = await waitFor(
      `every missed occurrence of ${id} to be settled`,
      async () => {
        const job = await scheduler.getJob(id);
        if (job.foreign) return undefined;
        const missed = settled(await scheduler.getHistory(id, { limit: 50 }));
        // coalesce false: one run per missed occurrence the schedule took (the rest missed its window).
        const expected =
          key === 'each'
            ? (fireAtOrBefore(ready) - firstMissed) / EVERY_MS + 1 - (job.counters?.missedCatchupWindow ?? 0)
            : 1;
        const done = missed.length >= expected && missed.every((r) => r.status !== 'running');
        if (!done) return undefined;
        out.skippedOverlap[key] = job.counters?.skippedOverlap ?? 0;
        out.missedCatchupWindow[key] = job.counters?.missedCatchupWindow ?? 0;
        return missed;
      },
      60_000,
    );
    await scheduler.pauseJob(id);
    runs.sort((a, b) => a.scheduledAt!.getTime() - b.scheduledAt!.getTime());
    out.runs[key] = await Promise.all(
      runs.map(async (r) => ({
        nominal: r.scheduledAt!.getTime(),
        firstTask: await firstTaskAt(client, r),
        status: r.status,
        ...(r.skipReason ? { skipReason: r.skipReason } : {}),
        ...(r.standsFor ? { standsFor: r.standsFor.getTime() } : {}),
        started: r.startedAt.getTime(),
        ...(r.closedAt ? { closed: r.closedAt.getTime() } : {}),
        ...(r.judgedAt ? { judgedAt: r.judgedAt.getTime() } : {}),
      })),
    );
    out.results[key] = await Promise.all(
      runs.map((r) =>
        client.workflow
          .getHandle(r.workflowId, r.runId)
          .result()
          .then((res: PipelineRunResult) => res),
      ),
    );
  }
  for (const id of ids) await scheduler.removeJob(id);
  return out;
}

describe('a worker outage across several fire times', () => {
  it('coalesce true runs the latest missed occurrence within the grace; coalesce false each one within it', async () => {
    const address = inject('temporalAddress');
    const namespace = inject('temporalNamespace');
    const taskQueue = `outage-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    const connections: Connection[] = [];
    const connect = async () => {
      const connection = await Connection.connect({ address });
      connections.push(connection);
      return new Client({ connection, namespace });
    };
    try {
      checkOutage(await runOutage(connect, { address, namespace, taskQueue }), 'worker outage');
    } finally {
      for (const c of connections) await c.close();
    }
  }, 180_000);

  it('keeps the same semantics when the Temporal server restarts during the outage', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'tflow-outage-server-'));
    dirs.push(home);
    const opts = {
      home,
      db: path.join(home, 'outage.db'),
      cliPath: inject('temporalCli') || readEnv().temporalCli,
      port: 0,
      uiPort: false as const,
      install: false,
      sdkDownload: false,
    };
    let server = await DevServer.start(opts);
    const port = Number(server.address.split(':').pop());
    const taskQueue = `outage-restart-${Date.now().toString(36)}`;
    const connections: Connection[] = [];
    const connect = async () => {
      const connection = await Connection.connect({ address: server.address });
      connections.push(connection);
      return new Client({ connection, namespace: server.namespace });
    };
    try {
      const outage = await runOutage(
        connect,
        { address: server.address, namespace: server.namespace, taskQueue },
        async () => {
          // Down once the first missed occurrences' runs exist; back on the same port and file.
          for (const c of connections.splice(0)) await c.close();
          await server.stop();
          const downAt = Date.now();
          // Part of the outage: a duration on the clock, not a wait for an event.
          await new Promise((r) => setTimeout(r, 3_000));
          server = await DevServer.start({ ...opts, port });
          console.info(`server down for ${Date.now() - downAt} ms`);
        },
      );
      checkOutage(outage, 'worker outage with a server restart');
    } finally {
      for (const c of connections) await c.close();
      await server.stop();
    }
  }, 240_000);
});

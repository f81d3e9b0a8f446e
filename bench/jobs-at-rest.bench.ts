/*
 * Jobs at rest: what N jobs cost while nothing happens. N daily jobs (cron `0 3 * * *`, so that nothing
 * fires during the run) on three sides, in turn, each on a fresh embedded dev server of its own (an at-rest
 * figure needs a server that holds only that side's jobs, so the address bench/run.ts gives is not used):
 * - `raw`: the same jobs created as raw Temporal schedules (the action and memos PipelineScheduler writes);
 * - `ours`: PipelineScheduler jobs without alerts;
 * - `ours+alerts`: PipelineScheduler jobs with scheduler-wide `onMissed` and `expectSuccessWithin: '25h'`
 *   (evaluated by the one shared alert evaluator of the queue).
 * Every side has the same alert worker polling, in a process of its own (with nothing to evaluate on the
 * first two sides it stands for the worker a raw schedule's jobs have too).
 * Per side: creation time (CONCURRENCY calls in flight), then after a settle, over a window of
 * `--minutes`: the server's CPU per minute (/proc/<pid>/stat of the process listening on its port), the
 * history events per hour of the schedules' own workflows (describe's history length of a sample of them
 * before and after the window, scaled to N) and of the alert evaluator (all of it: it is one workflow),
 * and the alert worker's CPU per minute and RSS (and its V8 heap). Ratios ours / raw. `--alert-worker
 * jemalloc` runs the alert worker as docs/operations.md advises for a process of its own.
 *
 *   npm run bench -- jobs-at-rest --jobs 1000          # about 25 minutes on 2 cores
 *   npm run bench -- jobs-at-rest --jobs 10000         # creation dominates: see docs/performance.md
 *   npx tsx bench/jobs-at-rest.bench.ts --jobs 200 --minutes 2 --sides raw,ours+alerts
 *
 * A progress line at least every 30 s (every 10 s while creating, with the time left).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { readEnv } from '../src/config';
import { DevServer } from '../src/devserver';
import { pipeline, toPipelineSpec } from '../src/pipeline';
import { PipelineScheduler } from '../src/client/jobs/pipeline-scheduler';
import { alertEvaluatorWorkflowId } from '../src/workflows/alerts/evaluator-defs';
import { evaluatorHeartbeat } from './evaluator-heartbeat';
import { pidListeningOn, processCpuMs, rssMb } from './process-cpu';
import { rawJobSchedules } from './raw-schedule';
import { pool as poolOf } from './pool';
import { intArg, reportRows, type SummaryRow } from './summary';
import {
  startWatchdogWorker,
  stopWatchdogWorker,
  workerHeap,
  type AlertWorkerProcess,
} from './watchdog-process';

const N = intArg('jobs', 1000);
/**
 * How the alert worker process runs (`--alert-worker default|tuned|jemalloc`, bench/watchdog-process.ts):
 * the same on every side. Default: plain `node`, as the runs before 2026-12-05.
 */
const ALERT_WORKER = ((): AlertWorkerProcess => {
  const i = process.argv.indexOf('--alert-worker');
  const mode = i < 0 ? 'default' : String(process.argv[i + 1]);
  if (!['default', 'tuned', 'jemalloc'].includes(mode))
    throw new Error('--alert-worker takes default, tuned or jemalloc');
  return mode as AlertWorkerProcess;
})();
const MINUTES = intArg('minutes', 5);
const SETTLE_S = intArg('settle', 60);
const CONCURRENCY = intArg('concurrency', 16);
/** Workflows described per kind for the history counts (each pass before and after the window). */
const SAMPLE = Math.min(intArg('sample', 2000), N);
type SideName = 'raw' | 'ours' | 'ours+alerts';
const ALL_SIDES: SideName[] = ['raw', 'ours', 'ours+alerts'];
const SIDES = ((): SideName[] => {
  const i = process.argv.indexOf('--sides');
  if (i < 0) return ALL_SIDES;
  const names = String(process.argv[i + 1]).split(',');
  for (const n of names)
    if (!ALL_SIDES.includes(n as SideName)) throw new Error(`--sides takes ${ALL_SIDES.join(',')}`);
  return names as SideName[];
})();
/** The scheduler's own workflow of a schedule (Temporal's), whose history a schedule at rest grows. */
const schedulerWorkflowId = (scheduleId: string) => `temporal-sys-scheduler:${scheduleId}`;

const began = performance.now();
const log = (text: string) =>
  console.log(`[${((performance.now() - began) / 1000).toFixed(0).padStart(5)} s] ${text}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** 03:00 in a time zone where it is at least 3 hours away, so that nothing fires during the run. */
function quietTimezone(): string {
  for (const tz of ['UTC', 'Asia/Tokyo', 'America/New_York']) {
    const hour = Number(
      new Intl.DateTimeFormat('en-GB', { timeZone: tz, hour: 'numeric', hourCycle: 'h23' }).format(
        new Date(),
      ),
    );
    if ((3 - hour + 24) % 24 >= 3) return tz;
  }
  return 'UTC';
}

const pool = (ids: string[], fn: (id: string) => Promise<unknown>, phase?: string) =>
  poolOf(ids, fn, CONCURRENCY, phase ? { phase, log } : undefined);

/** Sleeps `ms`, printing a line every 30 s. */
async function wait(what: string, ms: number, line?: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await sleep(Math.min(30_000, end - Date.now()));
    log(`${what}: ${Math.max(0, Math.round((end - Date.now()) / 1000))} s left${line ? `, ${line()}` : ''}`);
  }
}

/** Each workflow's current run and its history length (missing workflows are left out). */
async function historyLengths(
  client: Client,
  ids: string[],
): Promise<Map<string, { runId: string; length: number }>> {
  const lengths = new Map<string, { runId: string; length: number }>();
  await pool(ids, async (id) => {
    try {
      const d = await client.workflow.getHandle(id).describe();
      lengths.set(id, { runId: d.runId, length: d.historyLength });
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  });
  return lengths;
}

/**
 * History events added between two passes of {@link historyLengths}, undefined when no workflow was
 * seen. A workflow that continued as new in between counts the rest of its old run (described by its run
 * id) and all of its new one (Temporal's own schedule workflows do, so a bare difference can be negative).
 */
async function eventsBetween(
  client: Client,
  before: Map<string, { runId: string; length: number }>,
  after: Map<string, { runId: string; length: number }>,
): Promise<number | undefined> {
  if (before.size === 0 && after.size === 0) return undefined;
  let total = 0;
  await pool([...after.keys()], async (id) => {
    const b = before.get(id);
    const a = after.get(id)!;
    if (!b) total += a.length;
    else if (b.runId === a.runId) total += a.length - b.length;
    else {
      const old = await client.workflow.getHandle(id, b.runId).describe();
      total += old.historyLength - b.length + a.length;
    }
  });
  return total;
}

/**
 * Waits until the schedules' own workflows of the sample have done their start-up work (no workflow task
 * pending) and, with `evaluator`, until the alert evaluator has read all N jobs (its heartbeat says so).
 * On a loaded machine that lags the creates by minutes, and it is creation cost, not cost at rest.
 */
async function startedUp(
  client: Client,
  scheduleIds: string[],
  evaluator: string | undefined,
): Promise<void> {
  for (let pass = 1; ; pass++) {
    let busy = 0;
    await pool(scheduleIds, async (id) => {
      try {
        const d = await client.workflow.getHandle(id).describe();
        if (d.raw.pendingWorkflowTask) busy++;
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        busy++;
      }
    });
    let evaluated = 'no evaluator';
    if (evaluator) {
      const hb = await evaluatorHeartbeat(client, evaluator);
      evaluated = `the evaluator watches ${hb?.jobs ?? 0} of ${N} jobs`;
      if ((hb?.jobs ?? 0) < N) busy++;
    }
    log(
      `still starting up: ${busy} of ${scheduleIds.length} schedule workflows busy, ${evaluated} (pass ${pass})`,
    );
    if (busy === 0) return;
    if (pass * 10_000 > 15 * 60_000) {
      log('still starting up after 15 minutes: measuring anyway (the figures include start-up work)');
      return;
    }
    await sleep(10_000);
  }
}

interface SideFigures {
  createMsPerJob: number;
  serverCpuMsPerMin: number | undefined;
  /** The server's RSS at the end of the window. */
  serverRssMb: number | undefined;
  scheduleEventsPerHour: number | undefined;
  watchdogEventsPerHour: number | undefined;
  workerCpuMsPerMin?: number;
  workerRssMb?: number;
  workerIdleRssMb?: number;
}

async function runSide(name: SideName, tz: string): Promise<SideFigures> {
  const env = readEnv();
  const home = mkdtempSync(path.join(os.tmpdir(), 'tflow-at-rest-'));
  log(`${name}: starting a fresh dev server`);
  const server = await DevServer.startEphemeral({ ...env, home });
  let worker: ChildProcess | undefined;
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new Client({ connection, namespace: server.namespace });
    const serverPid = pidListeningOn(Number(server.address.split(':').pop()));
    const taskQueue = 'bench-at-rest';
    const watchdogTaskQueue = 'bench-at-rest-watchdog';
    const etl = pipeline('bench-at-rest').step('extract').step('load');
    const spec = toPipelineSpec(etl);
    const cron = '0 3 * * *';
    const never = { webhook: { url: 'http://127.0.0.1:9/never-called' } };
    const scheduler = new PipelineScheduler(client, {
      taskQueue,
      watchdogTaskQueue,
      ...(name === 'ours+alerts' ? { onMissed: never, onSilent: never, expectSuccessWithin: '25h' } : {}),
    });
    const rawSchedule = rawJobSchedules({ spec, taskQueue, cron, timezone: tz });
    const create: (id: string) => Promise<unknown> =
      name === 'raw'
        ? (id) => client.schedule.create(rawSchedule(id))
        : (id) => scheduler.schedule(etl, { jobId: id, cron, timezone: tz });

    const figures: Partial<SideFigures> = {};
    {
      // Every side has the same worker polling (a raw schedule's jobs have a worker too): only what the
      // alerts add differs.
      worker = await startWatchdogWorker(
        server.address,
        watchdogTaskQueue,
        'jobs-at-rest-worker',
        ALERT_WORKER,
      );
      await sleep(10_000);
      figures.workerIdleRssMb = rssMb(worker.pid!);
      log(`${name}: alert worker polling, RSS ${figures.workerIdleRssMb.toFixed(0)} MB before any job`);
    }
    const ids = Array.from({ length: N }, (_, i) => `at-rest-${i}`);
    log(`${name}: creating ${N} jobs, ${CONCURRENCY} in flight`);
    const createMs = await pool(ids, create, `${name}: created`);
    figures.createMsPerJob = createMs / N;
    log(`${name}: created ${N} in ${(createMs / 1000).toFixed(1)} s`);
    const sample = Array.from({ length: SAMPLE }, (_, i) => ids[Math.floor((i * N) / SAMPLE)]!);
    const scheduleIds = sample.map(schedulerWorkflowId);
    // The one workflow alerts add, whatever N: all of it is counted, not a sample.
    const evaluatorIds = name === 'ours+alerts' ? [alertEvaluatorWorkflowId(watchdogTaskQueue)] : [];
    await startedUp(client, scheduleIds, evaluatorIds[0]);
    // The describes above and below, and the server's own work after a burst, must not fall in the window.
    log(`${name}: settling ${SETTLE_S} s`);
    await wait(`${name}: settling`, SETTLE_S * 1000);
    log(`${name}: history lengths of ${SAMPLE} schedules and the alert evaluator (before)`);
    const before = {
      at: Date.now(),
      schedules: await historyLengths(client, scheduleIds),
      evaluator: await historyLengths(client, evaluatorIds),
    };
    await wait(`${name}: settling after the describes`, 30_000);
    const cpu0 = serverPid ? processCpuMs(serverPid) : undefined;
    const wcpu0 = worker ? processCpuMs(worker.pid!) : undefined;
    const t0 = performance.now();
    // Each line: the rate since the previous line too, and the server's RSS, to tell a falling rate (the
    // server still digesting the creates) from a steady one.
    let last = { cpu: cpu0, at: t0 };
    const cpuSoFar = () => {
      if (!serverPid || cpu0 === undefined || last.cpu === undefined) return 'server CPU not visible';
      const [cpu, at] = [processCpuMs(serverPid), performance.now()];
      const rate = (from: number, since: number) => (((cpu - from) / (at - since)) * 60_000).toFixed(0);
      const line = `server ${rate(cpu0, t0)} ms CPU/min so far, ${rate(last.cpu, last.at)} since the last line, RSS ${rssMb(serverPid).toFixed(0)} MB`;
      last = { cpu, at };
      return line;
    };
    await wait(`${name}: at rest, measuring`, MINUTES * 60_000, cpuSoFar);
    const minutes = (performance.now() - t0) / 60_000;
    figures.serverCpuMsPerMin =
      serverPid && cpu0 !== undefined ? (processCpuMs(serverPid) - cpu0) / minutes : undefined;
    figures.serverRssMb = serverPid ? rssMb(serverPid) : undefined;
    if (worker) {
      figures.workerCpuMsPerMin = (processCpuMs(worker.pid!) - wcpu0!) / minutes;
      figures.workerRssMb = rssMb(worker.pid!);
      const heap = workerHeap(worker);
      if (heap)
        log(
          `${name}: alert worker V8 heap ${heap.usedMb} MB used of ${heap.totalMb} MB (${ALERT_WORKER} process)`,
        );
    }
    log(`${name}: history lengths of ${SAMPLE} schedules and the alert evaluator (after)`);
    const afterSchedules = await historyLengths(client, scheduleIds);
    const afterEvaluator = await historyLengths(client, evaluatorIds);
    const hours = (Date.now() - before.at) / 3600_000;
    const perHour = (events: number | undefined) =>
      events === undefined ? undefined : (events * (N / SAMPLE)) / hours;
    figures.scheduleEventsPerHour = perHour(await eventsBetween(client, before.schedules, afterSchedules));
    const evaluatorEvents = await eventsBetween(client, before.evaluator, afterEvaluator);
    figures.watchdogEventsPerHour =
      name === 'ours+alerts' && evaluatorEvents !== undefined ? evaluatorEvents / hours : 0;
    log(
      `${name}: server ${figures.serverCpuMsPerMin?.toFixed(0) ?? '?'} ms CPU/min, RSS ${figures.serverRssMb?.toFixed(0) ?? '?'} MB; history events/h: ` +
        `schedules ${figures.scheduleEventsPerHour?.toFixed(0) ?? 'not visible'}, alert evaluator ${figures.watchdogEventsPerHour?.toFixed(0) ?? '?'}` +
        (worker
          ? `; alert worker ${figures.workerCpuMsPerMin!.toFixed(0)} ms CPU/min, RSS ${figures.workerRssMb!.toFixed(0)} MB`
          : ''),
    );
    return figures as SideFigures;
  } finally {
    await stopWatchdogWorker(worker);
    await connection.close();
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const tz = quietTimezone();
  const perSide = 60 + SETTLE_S + MINUTES * 60 + N / 15;
  console.log(
    `${N} jobs per side (${SIDES.join(', ')}), cron '0 3 * * *' in ${tz}, settle ${SETTLE_S} s, at rest ${MINUTES} min, ` +
      `${SAMPLE} of each kind described; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; ` +
      `roughly ${Math.round((perSide * SIDES.length) / 60)} min or more (creation is the unknown: its rate is printed)`,
  );
  const figures: Partial<Record<SideName, SideFigures>> = {};
  for (const side of SIDES) figures[side] = await runSide(side, tz);
  console.log(
    `load average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );

  const rows: SummaryRow[] = [];
  const raw = figures.raw;
  const row = (
    metric: string,
    unit: string,
    ours: SideName,
    value: number | undefined,
    base?: { label: string; value: number | undefined },
  ) => {
    if (value === undefined) {
      rows.push({ bench: 'jobs-at-rest', metric, unit, ours, oursValue: NaN, skipped: 'not visible' });
      return;
    }
    rows.push({
      bench: 'jobs-at-rest',
      metric,
      unit,
      ours,
      oursValue: value,
      ...(base && base.value !== undefined
        ? {
            baseline: base.label,
            baselineValue: base.value,
            ...(base.value > 0 ? { ratio: value / base.value } : {}),
          }
        : {}),
    });
  };
  for (const side of ['ours', 'ours+alerts'] as const) {
    const f = figures[side];
    if (!f) continue;
    const against = (v: number | undefined) => ({ label: 'raw schedules', value: v });
    row(
      `create, ${N} jobs, ${CONCURRENCY} in flight`,
      'ms/job',
      side,
      f.createMsPerJob,
      raw && against(raw.createMsPerJob),
    );
    row(
      `server CPU at rest, ${N} jobs`,
      'ms/min',
      side,
      f.serverCpuMsPerMin,
      raw && against(raw.serverCpuMsPerMin),
    );
    row(`server RSS at rest, ${N} jobs`, 'MB', side, f.serverRssMb, raw && against(raw.serverRssMb));
    const events = (x: SideFigures) =>
      x.scheduleEventsPerHour === undefined
        ? undefined
        : x.scheduleEventsPerHour + (x.watchdogEventsPerHour ?? 0);
    row(`history events at rest, ${N} jobs`, 'events/h', side, events(f), raw && against(events(raw)));
    if (side === 'ours+alerts') {
      row(`alert evaluator history events at rest, ${N} jobs`, 'events/h', side, f.watchdogEventsPerHour);
      for (const [what, unit, figure] of [
        ['CPU', 'ms/min', 'workerCpuMsPerMin'],
        ['RSS', 'MB', 'workerRssMb'],
      ] as const) {
        row(
          `alert worker ${what} at rest, ${N} jobs evaluated`,
          unit,
          side,
          f[figure],
          raw && { label: 'same worker, raw side', value: raw[figure] },
        );
      }
    }
  }
  reportRows(rows);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

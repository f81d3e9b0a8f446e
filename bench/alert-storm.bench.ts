/*
 * The 03:00 storm: N daily jobs all due at the same minute, with scheduler-wide `onMissed`, `onSilent` and
 * `expectSuccessWithin: '25h'`, and how soon after that minute the one shared alert evaluator has checked
 * every one of them (their counters, due 30 s after the nominal time: a `missed` would be raised then).
 * Target (issue "One job, one entity"): all N checked within 60 s of their nominal time on 2 cores, with no
 * read failing (no deadline storm), and no alert raised (every time fired: a `missed` would be false).
 *
 * Two sides in turn, each on a fresh embedded dev server of its own with the same alert worker process
 * (compiled against dist/, as a user runs it) polling: `raw`, the same jobs as raw Temporal schedules, and
 * `ours+alerts`. The nominal time T is the first whole minute at least `--lead` minutes after the side
 * starts (cron `M H * * *` in UTC); the jobs' task queue has no worker, so the runs started at T wait in it
 * on both sides (the storm is the server's and the evaluator's, not the steps'). Per side: creation time,
 * the server's CPU from T - 60 s to T + 120 s, the runs started by T + `--after` s; on ours, each job's
 * first counts check after T (the alert worker's `onAlertCheck`), failed reads and deliveries; per side,
 * when each job's run started (visibility), so that a check can be set against its own run. Then, on
 * ours, the alert worker's RSS at rest holding all N jobs, `--rss-rounds` times each of a plain `node`
 * process, one with two glibc malloc arenas (`tuned`) and one with jemalloc preloaded as docs/operations.md
 * recommends (`jemalloc`, when libjemalloc2 is installed), in turn (bench/watchdog-process.ts).
 *
 *   npm run bench -- alert-storm                           # 10,000 jobs: about 30 minutes on 2 cores
 *   npx tsx bench/alert-storm.bench.ts --jobs 500 --lead 3 --sides ours+alerts
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { readEnv } from '../src/config';
import { DevServer } from '../src/devserver';
import { pipeline, toPipelineSpec } from '../src/pipeline';
import { PipelineScheduler } from '../src/client/jobs/pipeline-scheduler';
import { alertEvaluatorWorkflowId } from '../src/workflows/alerts/evaluator-defs';
import { PIPELINE_WORKFLOW_TYPE } from '../src/workflows/run-types';
import { SCHEDULED_BY_ID_ATTRIBUTE } from '../src/workflows/search-attributes';
import { evaluatorHeartbeat } from './evaluator-heartbeat';
import { pidListeningOn, processCpuMs, rssMb } from './process-cpu';
import { rawJobSchedules } from './raw-schedule';
import { pool as poolOf } from './pool';
import { intArg, reportRows, type SummaryRow } from './summary';
import {
  jemallocPath,
  startWatchdogWorker,
  stopWatchdogWorker,
  workerHeap,
  type AlertWorkerProcess,
} from './watchdog-process';

const N = intArg('jobs', 10_000);
/** Minutes from a side's start to its nominal time: creation, and the evaluator's first read of each job. */
const LEAD_MIN = intArg('lead', 4 + Math.ceil(N / 1500));
/** Seconds after T the side watches. */
const AFTER_S = intArg('after', 180);
const CONCURRENCY = intArg('concurrency', 16);
/**
 * After the watch, on ours: alert worker processes started in turn (plain node, then as
 * docs/operations.md recommends), each holding all N jobs, and their RSS at rest. 0: none.
 */
const RSS_ROUNDS = intArg('rss-rounds', 2);
/**
 * The alert worker processes whose RSS at rest is measured (`--rss-modes default,tuned,jemalloc`; by
 * default all three, jemalloc only where it is installed).
 */
const RSS_MODES = ((): AlertWorkerProcess[] => {
  const all: AlertWorkerProcess[] = ['default', 'tuned', 'jemalloc'];
  const i = process.argv.indexOf('--rss-modes');
  if (i < 0) return all.filter((m) => m !== 'jemalloc' || jemallocPath() !== undefined);
  const names = String(process.argv[i + 1]).split(',');
  for (const n of names)
    if (!all.includes(n as AlertWorkerProcess)) throw new Error(`--rss-modes takes ${all.join(',')}`);
  return names as AlertWorkerProcess[];
})();
/** Seconds an alert worker of the RSS phase runs after it watches all N jobs before its RSS is sampled. */
const RSS_SETTLE_S = intArg('rss-settle', 30);
/** The target: every job checked within this of its nominal time. */
const TARGET_S = 60;
type SideName = 'raw' | 'ours+alerts';
const ALL_SIDES: SideName[] = ['raw', 'ours+alerts'];
const SIDES = ((): SideName[] => {
  const i = process.argv.indexOf('--sides');
  if (i < 0) return ALL_SIDES;
  const names = String(process.argv[i + 1]).split(',');
  for (const n of names)
    if (!ALL_SIDES.includes(n as SideName)) throw new Error(`--sides takes ${ALL_SIDES.join(',')}`);
  return names as SideName[];
})();

const began = performance.now();
const log = (text: string) =>
  console.log(`[${((performance.now() - began) / 1000).toFixed(0).padStart(5)} s] ${text}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sleepUntil = async (at: number) => {
  while (Date.now() < at) await sleep(Math.min(1000, at - Date.now()));
};
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const pool = (ids: string[], fn: (id: string) => Promise<unknown>, phase?: string) =>
  poolOf(ids, fn, CONCURRENCY, phase ? { phase, log } : undefined);

/** The q-quantile (0..1) of sorted values. */
const quantile = (sorted: number[], q: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

interface WorkerLines {
  /** First counts check after T, by job: when it ran (epoch ms). */
  checkedAt: Map<string, number>;
  failed: number;
  failedSample: string[];
  deliveries: number;
}

/** Reads the alert worker's lines: checks, failed reads and deliveries. */
function follow(worker: ChildProcess, nominal: number): WorkerLines {
  const lines: WorkerLines = { checkedAt: new Map(), failed: 0, failedSample: [], deliveries: 0 };
  let rest = '';
  worker.stdout!.on('data', (b: Buffer) => {
    const parts = (rest + b.toString()).split('\n');
    rest = parts.pop()!;
    for (const text of parts) {
      const space = text.indexOf(' ');
      const kind = text.slice(0, space);
      if (kind !== 'check' && kind !== 'failed' && kind !== 'delivery') continue;
      const fields = JSON.parse(text.slice(space + 1)) as Record<string, unknown>;
      if (kind === 'check') {
        const due = fields.due as string[];
        const job = fields.job as string;
        // The check of the counters due after T (30 s after it), not one made before T.
        if (due.includes('counts') && (fields.dueAt as number) >= nominal && !lines.checkedAt.has(job))
          lines.checkedAt.set(job, fields.at as number);
      } else if (kind === 'failed') {
        lines.failed++;
        if (lines.failedSample.length < 3) lines.failedSample.push(String(fields.error));
      } else lines.deliveries++;
    }
  });
  return lines;
}

interface SideFigures {
  createMsPerJob: number;
  serverCpuMsPerMin: number | undefined;
  runsStarted: number;
  workerRssMb: number;
  /** Each run's start after T (s), sorted. */
  runStartsS: number[];
  /** ours+alerts only. */
  lagsS?: number[];
  /** Each job's check after its own run started (s), sorted. */
  lagsAfterRunS?: number[];
  /** RSS at rest with all N jobs, by alert worker process kind (MB, one per round). */
  restRssMb?: Record<AlertWorkerProcess, number[]>;
  failed?: number;
  deliveries?: number;
}

/** When each job's run started (epoch ms), by job id (its schedule's id), from visibility. */
async function runStarts(client: Client): Promise<Map<string, number>> {
  const starts = new Map<string, number>();
  const query = `WorkflowType = '${PIPELINE_WORKFLOW_TYPE}'`;
  for await (const wf of client.workflow.list({ query, pageSize: 1000 })) {
    const job = wf.typedSearchAttributes.get(SCHEDULED_BY_ID_ATTRIBUTE);
    if (job && !starts.has(job)) starts.set(job, wf.startTime.getTime());
  }
  return starts;
}

/**
 * The alert worker's RSS at rest holding all N jobs: processes started in turn, `default` then `tuned`,
 * {@link RSS_ROUNDS} times; each is sampled every 5 s for {@link RSS_SETTLE_S} s once its evaluator's
 * heartbeat (from after the process started) says it watches all N jobs, and gives the median sample.
 */
async function restRss(
  client: Client,
  address: string,
  alertQueue: string,
): Promise<Record<AlertWorkerProcess, number[]>> {
  const rss: Record<AlertWorkerProcess, number[]> = { default: [], tuned: [], jemalloc: [] };
  const evaluator = alertEvaluatorWorkflowId(alertQueue);
  for (let round = 0; round < RSS_ROUNDS; round++) {
    for (const mode of RSS_MODES) {
      const startedAt = Date.now();
      const worker = await startWatchdogWorker(address, alertQueue, 'jobs-at-rest-worker', mode);
      try {
        for (;;) {
          const hb = await evaluatorHeartbeat(client, evaluator);
          if (hb?.waveAt && Date.parse(hb.waveAt) > startedAt && (hb.jobs ?? 0) >= N) break;
          if (Date.now() - startedAt > 10 * 60_000)
            throw new Error(`the ${mode} alert worker did not watch all ${N} jobs within 10 minutes`);
          await sleep(5000);
        }
        const samples: number[] = [];
        for (let s = 0; s < RSS_SETTLE_S; s += 5) {
          await sleep(5000);
          samples.push(rssMb(worker.pid!));
        }
        const median = [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
        rss[mode].push(median);
        const heap = workerHeap(worker);
        log(
          `ours+alerts: ${mode} alert worker, round ${round + 1}: watches all ${N} jobs ${((Date.now() - startedAt) / 1000 - RSS_SETTLE_S).toFixed(0)} s after its start; RSS ${samples.map((v) => v.toFixed(0)).join(' ')} MB` +
            (heap
              ? `; V8 heap ${heap.usedMb} MB used of ${heap.totalMb} MB, external ${heap.externalMb} MB`
              : ''),
        );
      } finally {
        await stopWatchdogWorker(worker);
      }
    }
  }
  return rss;
}

async function runSide(name: SideName): Promise<SideFigures> {
  const env = readEnv();
  const home = mkdtempSync(path.join(os.tmpdir(), 'tflow-storm-'));
  log(`${name}: starting a fresh dev server (load average ${load()})`);
  const server = await DevServer.startEphemeral({ ...env, home });
  const connection = await Connection.connect({ address: server.address });
  let worker: ChildProcess | undefined;
  try {
    const client = new Client({ connection, namespace: server.namespace });
    const serverPid = pidListeningOn(Number(server.address.split(':').pop()));
    const taskQueue = 'bench-storm';
    const alertQueue = 'bench-storm-alerts';
    const nominal = Math.ceil((Date.now() + LEAD_MIN * 60_000) / 60_000) * 60_000;
    const at = new Date(nominal);
    const cron = `${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
    log(`${name}: ${N} jobs '${cron}' in UTC, due at ${at.toISOString()}`);
    worker = await startWatchdogWorker(server.address, alertQueue, 'alert-storm-worker');
    const lines = follow(worker, nominal);
    const etl = pipeline('bench-storm').step('extract').step('load');
    const never = { webhook: { url: 'http://127.0.0.1:9/never-called' } };
    const scheduler = new PipelineScheduler(client, {
      taskQueue,
      watchdogTaskQueue: alertQueue,
      onMissed: never,
      onSilent: never,
      expectSuccessWithin: '25h',
    });
    const rawSchedule = rawJobSchedules({ spec: toPipelineSpec(etl), taskQueue, cron, timezone: 'UTC' });
    const create: (id: string) => Promise<unknown> =
      name === 'raw'
        ? (id) => client.schedule.create(rawSchedule(id))
        : (id) => scheduler.schedule(etl, { jobId: id, cron, timezone: 'UTC' });
    const ids = Array.from({ length: N }, (_, i) => `storm-${i}`);
    const createMs = await pool(ids, create, `${name}: created`);
    log(`${name}: created ${N} in ${(createMs / 1000).toFixed(1)} s`);
    if (name === 'ours+alerts') {
      const evaluator = alertEvaluatorWorkflowId(alertQueue);
      for (;;) {
        const hb = await evaluatorHeartbeat(client, evaluator);
        const watched = hb?.jobs ?? 0;
        if (watched >= N) {
          log(
            `${name}: the evaluator watches all ${N} jobs, ${((nominal - Date.now()) / 1000).toFixed(0)} s before T`,
          );
          break;
        }
        if (Date.now() > nominal - 60_000) {
          log(
            `${name}: the evaluator watches ${watched} of ${N} jobs a minute before T: --lead is too short`,
          );
          break;
        }
        log(`${name}: the evaluator watches ${watched} of ${N} jobs`);
        await sleep(10_000);
      }
    }
    log(`${name}: waiting for T - 60 s`);
    await sleepUntil(nominal - 60_000);
    const cpu0 = serverPid ? processCpuMs(serverPid) : undefined;
    const t0 = performance.now();
    const windowEnd = nominal + 120_000;
    const watchEnd = nominal + AFTER_S * 1000;
    while (Date.now() < watchEnd) {
      await sleep(10_000);
      const since = Math.round((Date.now() - nominal) / 1000);
      log(
        `${name}: T${since >= 0 ? '+' : ''}${since} s` +
          (name === 'ours+alerts'
            ? `, checked ${lines.checkedAt.size} of ${N}, failed reads ${lines.failed}, deliveries ${lines.deliveries}`
            : '') +
          `, load ${load()}`,
      );
      if (Date.now() >= windowEnd && name === 'ours+alerts' && lines.checkedAt.size >= N) break;
    }
    await sleepUntil(windowEnd);
    const serverCpuMsPerMin =
      serverPid && cpu0 !== undefined
        ? ((processCpuMs(serverPid) - cpu0) / (performance.now() - t0)) * 60_000
        : undefined;
    const runsStarted = (await client.workflow.count(`WorkflowType = '${PIPELINE_WORKFLOW_TYPE}'`)).count;
    const started = await runStarts(client);
    const figures: SideFigures = {
      createMsPerJob: createMs / N,
      serverCpuMsPerMin,
      runsStarted,
      workerRssMb: rssMb(worker.pid!),
      runStartsS: [...started.values()].map((t) => (t - nominal) / 1000).sort((a, b) => a - b),
    };
    log(
      `${name}: runs started after T, p50 ${quantile(figures.runStartsS, 0.5).toFixed(1)} s, max ${quantile(figures.runStartsS, 1).toFixed(1)} s; ${figures.runStartsS.filter((s) => s <= TARGET_S).length} within ${TARGET_S} s`,
    );
    if (name === 'ours+alerts') {
      figures.lagsS = [...lines.checkedAt.values()].map((t) => (t - nominal) / 1000).sort((a, b) => a - b);
      figures.lagsAfterRunS = [...lines.checkedAt]
        .filter(([job]) => started.has(job))
        .map(([job, t]) => (t - started.get(job)!) / 1000)
        .sort((a, b) => a - b);
      figures.failed = lines.failed;
      figures.deliveries = lines.deliveries;
      if (lines.failedSample.length > 0) log(`${name}: failed reads, e.g. ${lines.failedSample.join(' | ')}`);
    }
    log(
      `${name}: server ${serverCpuMsPerMin?.toFixed(0) ?? '?'} ms CPU/min from T-60 s to T+120 s, ${runsStarted} runs started, alert worker RSS ${figures.workerRssMb.toFixed(0)} MB`,
    );
    if (name === 'ours+alerts' && RSS_ROUNDS > 0) {
      await stopWatchdogWorker(worker);
      worker = undefined;
      figures.restRssMb = await restRss(client, server.address, alertQueue);
    }
    return figures;
  } finally {
    await stopWatchdogWorker(worker);
    await connection.close();
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(
    `${N} daily jobs per side (${SIDES.join(', ')}), all due at one minute ${LEAD_MIN} minutes or more after each side starts; load average ${load()}`,
  );
  const figures: Partial<Record<SideName, SideFigures>> = {};
  for (const side of SIDES) figures[side] = await runSide(side);
  console.log(`load average at the end ${load()}`);
  const rows: SummaryRow[] = [];
  const ours = figures['ours+alerts'];
  const raw = figures.raw;
  const bench = 'alert-storm';
  const label = 'ours + onMissed + expectSuccessWithin';
  if (ours) {
    const lags = ours.lagsS!;
    const within = lags.filter((l) => l <= TARGET_S).length;
    rows.push({
      bench,
      metric: `jobs checked within ${TARGET_S} s of T, of ${N}`,
      unit: 'jobs',
      ours: label,
      oursValue: within,
    });
    rows.push({
      bench,
      metric: `jobs never checked by T+${AFTER_S} s`,
      unit: 'jobs',
      ours: label,
      oursValue: N - lags.length,
    });
    for (const [q, name] of [
      [0.5, 'p50'],
      [0.95, 'p95'],
      [1, 'max'],
    ] as const)
      rows.push({
        bench,
        metric: `check after T, ${name}`,
        unit: 's',
        ours: label,
        oursValue: quantile(lags, q),
      });
    const afterRun = ours.lagsAfterRunS!;
    for (const [q, name] of [
      [0.5, 'p50'],
      [1, 'max'],
    ] as const)
      rows.push({
        bench,
        metric: `check after the job's run started, ${name}`,
        unit: 's',
        ours: label,
        oursValue: quantile(afterRun, q),
      });
    for (const mode of RSS_MODES) {
      const values = ours.restRssMb?.[mode] ?? [];
      if (values.length === 0) continue;
      rows.push({
        bench,
        metric: `alert worker RSS at rest holding ${N} jobs, ${mode} process (median of ${values.length})`,
        unit: 'MB',
        ours: label,
        oursValue: [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!,
      });
    }
    rows.push({
      bench,
      metric: 'failed reads (from the creates to the end)',
      unit: 'reads',
      ours: label,
      oursValue: ours.failed!,
    });
    rows.push({
      bench,
      metric: 'alerts raised (all false: every time fired)',
      unit: 'alerts',
      ours: label,
      oursValue: ours.deliveries!,
    });
  }
  for (const side of ['ours+alerts'] as const) {
    const f = figures[side];
    if (!f) continue;
    const vs = (v: number | undefined, b: number | undefined) =>
      v !== undefined && b !== undefined && raw
        ? { baseline: 'raw schedules', baselineValue: b, ...(b > 0 ? { ratio: v / b } : {}) }
        : {};
    rows.push({
      bench,
      metric: `create, ${N} jobs, ${CONCURRENCY} in flight`,
      unit: 'ms/job',
      ours: label,
      oursValue: f.createMsPerJob,
      ...vs(f.createMsPerJob, raw?.createMsPerJob),
    });
    rows.push({
      bench,
      metric: 'server CPU, T-60 s to T+120 s',
      unit: 'ms/min',
      ours: label,
      oursValue: f.serverCpuMsPerMin ?? NaN,
      ...vs(f.serverCpuMsPerMin, raw?.serverCpuMsPerMin),
    });
    rows.push({
      bench,
      metric: `runs started within ${TARGET_S} s of T`,
      unit: 'runs',
      ours: label,
      oursValue: f.runStartsS.filter((v) => v <= TARGET_S).length,
      ...vs(
        f.runStartsS.filter((v) => v <= TARGET_S).length,
        raw?.runStartsS.filter((v) => v <= TARGET_S).length,
      ),
    });
    rows.push({
      bench,
      metric: 'last run started after T',
      unit: 's',
      ours: label,
      oursValue: quantile(f.runStartsS, 1),
      ...vs(quantile(f.runStartsS, 1), raw && quantile(raw.runStartsS, 1)),
    });
    rows.push({
      bench,
      metric: `runs started by T+${AFTER_S} s`,
      unit: 'runs',
      ours: label,
      oursValue: f.runsStarted,
      ...vs(f.runsStarted, raw?.runsStarted),
    });
    rows.push({
      bench,
      metric: 'alert worker RSS after the storm',
      unit: 'MB',
      ours: label,
      oursValue: f.workerRssMb,
      ...vs(f.workerRssMb, raw?.workerRssMb),
    });
  }
  reportRows(rows);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

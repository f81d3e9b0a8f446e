/*
 * Burst capacity: N jobs due at the same instant. Ours (PipelineScheduler jobs running a 1-step pipeline,
 * on createWorker) against raw Temporal Schedules starting a hand-written one-activity workflow
 * (bench/burst-baseline-workflow.ts, on a plain SDK Worker), on the same server, in the same process.
 * Each burst fires alone (one side at a time, order flipped every round) so that its latency and CPU are
 * its own. Prints p50/p99/max of nominal time -> workflow start (visibility's StartTime) and -> first step
 * start (the step notes Date.now()), and CPU per fired run: the server's (/proc/<pid>/stat of the process
 * listening on the address) and the worker's (this process: both workers, the SDK core and the driver,
 * which idles during a burst), from just before the nominal time until every run of the burst completed.
 *
 *   npm run bench -- fire-burst                   # 200 jobs, 2 rounds, on a fresh embedded server
 *   npx tsx bench/run.ts fire-burst               # same
 *   npm run bench -- fire-burst --jobs 1000 --rounds 2
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 npx tsx bench/fire-burst.bench.ts --worker-options '{"maxCachedWorkflows":0}'
 *   npm run bench -- fire-burst --profile .tflow/bench/fire-burst   # and a V8 CPU profile of each burst
 *   npm run bench -- fire-burst --run-metadata off   # ours' jobs without their runs' UI summary and details
 *
 * After the bursts it counts the promises one fired run creates in the workflow sandbox, each side (a job
 * triggered once, its history replayed on this thread: bench/promise-count.ts), the sandbox's main per-run cost, and
 * the bytes of that run's history by part (bench/history-bytes.ts).
 *
 * `--profile <folder>`: V8 CPU profiles of the process's main thread and workflow threads over each burst's
 * measured window (bench/cpu-profiles.ts), written as `<side>-r<round>-*.cpuprofile`, with a flame graph,
 * folded stacks and the top functions of each side, and the sampled CPU per fired run by phase. Sampling
 * costs CPU of its own: the CPU figures of a profiled run are not comparable with an unprofiled one's.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { readEnv } from '../src/config';
import { PipelineScheduler } from '../src/client/jobs/pipeline-scheduler';
import { pipeline } from '../src/pipeline';
import { createWorker } from '../src/worker/create-worker';
import { buildWorkflowBundle } from '../src/worker/workflow-bundle';
import { recordingSteps } from './burst-steps';
import {
  BundleIndex,
  flameGraphSvg,
  foldedStacks,
  FrameReader,
  PHASES,
  summarize,
  ThreadProfiler,
  type CpuProfile,
} from './cpu-profiles';
import { ownCpuMs, pidListeningOn, processCpuMs } from './process-cpu';
import { promisesOfReplay } from './promise-count';
import { bytesByPart, HISTORY_PARTS, type HistoryPart } from './history-bytes';
import { intArg, reportRows, type SummaryRow } from './summary';

const N = intArg('jobs', 200);
const ROUNDS = intArg('rounds', 2);
const CONCURRENCY = intArg('concurrency', 16);
/** `--run-metadata off`: ours' jobs written by a `PipelineScheduler({ runMetadata: false })` (no UI summary). */
const RUN_METADATA_OFF = process.argv.includes('--run-metadata')
  ? process.argv[process.argv.indexOf('--run-metadata') + 1] === 'off'
  : false;
const WARMUP = Math.min(10, N);
/** `--worker-options '{"maxConcurrentWorkflowTaskPolls":20}'`: extra options for our worker, to try a tuning. */
const OURS_WORKER_OPTIONS = ((): Record<string, unknown> => {
  const i = process.argv.indexOf('--worker-options');
  return i >= 0 ? (JSON.parse(process.argv[i + 1] ?? '{}') as Record<string, unknown>) : {};
})();
const YEAR_MS = 365 * 24 * 3600_000;
/** `--profile <folder>`: where the V8 CPU profiles of each burst go; no profiling without it. */
const PROFILE_DIR = ((): string | undefined => {
  const i = process.argv.indexOf('--profile');
  return i >= 0 ? path.resolve(process.argv[i + 1] ?? '.tflow/bench/fire-burst') : undefined;
})();

type SideName = 'ours' | 'raw';
interface Side {
  name: SideName;
  queue: string;
  /** Workflow id -> when its step started: filled by the side's worker. */
  started: Map<string, number>;
  create(id: string, at: Date): Promise<unknown>;
  remove(id: string): Promise<unknown>;
}
interface BurstFigures {
  wfStartMs: number[];
  firstStepMs: number[];
  serverCpuMs: number | undefined;
  workerCpuMs: number;
}

const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - Date.now())));

async function pool(ids: string[], fn: (id: string) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < ids.length; i = next++) await fn(ids[i]!);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const address = readEnv().temporalAddress ?? '127.0.0.1:7233';
  const serverPid = pidListeningOn(Number(address.split(':').pop()));
  const quiet = { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} };
  const [oursBundle, rawBundle] = await Promise.all([
    // What createWorker builds: temporal-flow's interceptor modules included (without them it warns).
    buildWorkflowBundle(quiet),
    bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'burst-baseline-workflow.ts'), logger: quiet }),
  ]);
  const native = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const tag = randomUUID().slice(0, 8);
  const oursStarted = new Map<string, number>();
  const rawStarted = new Map<string, number>();
  const oursQueue = `burst-ours-${tag}`;
  const rawQueue = `burst-raw-${tag}`;
  const oursWorker = await createWorker({
    connection: native,
    taskQueue: oursQueue,
    steps: recordingSteps(oursStarted),
    workflowBundle: oursBundle,
    workerOptions: OURS_WORKER_OPTIONS,
  });
  const rawWorker = await Worker.create({
    connection: native,
    taskQueue: rawQueue,
    activities: recordingSteps(rawStarted),
    workflowBundle: rawBundle,
  });
  const steps = recordingSteps(oursStarted);
  const oneStep = pipeline('burst-1-step', { steps }).step('burstStep');
  const scheduler = new PipelineScheduler(client, {
    taskQueue: oursQueue,
    ...(RUN_METADATA_OFF ? { runMetadata: false } : {}),
  });
  const calendar = (at: Date) => ({
    second: at.getUTCSeconds(),
    minute: at.getUTCMinutes(),
    hour: at.getUTCHours(),
  });
  /** A raw schedule due at `at` starting the hand-written workflow on `queue`. */
  const rawScheduleOptions = (id: string, at: Date, queue: string) => ({
    scheduleId: id,
    spec: { calendars: [calendar(at)], timezone: 'UTC' },
    action: {
      type: 'startWorkflow' as const,
      workflowType: 'burstBaselineWorkflow',
      workflowId: id,
      taskQueue: queue,
      args: [1],
    },
    policies: { overlap: 'SKIP' as const, catchupWindow: YEAR_MS, pauseOnFailure: false },
  });

  const sides: Record<SideName, Side> = {
    ours: {
      name: 'ours',
      queue: oursQueue,
      started: oursStarted,
      create: (id, at) =>
        scheduler.schedule(oneStep, { jobId: id, calendar: calendar(at), timezone: 'UTC', args: [1] }),
      remove: (id) => scheduler.removeJob(id),
    },
    raw: {
      name: 'raw',
      queue: rawQueue,
      started: rawStarted,
      create: (id, at) => client.schedule.create(rawScheduleOptions(id, at, rawQueue)),
      remove: (id) => client.schedule.getHandle(id).delete(),
    },
  };

  /** Creates n schedules of `side` due at one instant `leadMs` ahead, lets them fire, measures, deletes them. */
  async function burst(side: Side, n: number, leadMs: number): Promise<BurstFigures & { createMs: number }> {
    const prefix = `burst-${side.name}-${randomUUID().slice(0, 8)}-`;
    const ids = Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    const due = Math.ceil((Date.now() + leadMs) / 1000) * 1000;
    side.started.clear();
    const createStart = Date.now();
    await pool(ids, (id) => side.create(id, new Date(due)));
    const createMs = Date.now() - createStart;
    // A schedule takes its first fire time from when its scheduler workflow first ran, which lags creation
    // on a busy server: check that every schedule still has the due time ahead of it.
    await pool(ids, async (id) => {
      const next = (await client.schedule.getHandle(id).describe()).info.nextActionTimes[0];
      if (next?.getTime() !== due || Date.now() > due - 500) {
        throw new Error(
          `${n} schedules were not all running before their due time (${createMs} ms to create): raise --lead`,
        );
      }
    });
    await sleepUntil(due - 300);
    await profiler?.start(500);
    const server0 = serverPid === undefined ? undefined : processCpuMs(serverPid);
    const worker0 = ownCpuMs();
    const since = new Date(due - 1000).toISOString();
    const query = `TaskQueue = "${side.queue}" AND StartTime >= "${since}"`;
    const deadline = Date.now() + 60_000 + n * 200;
    while ((await client.workflow.count(`${query} AND ExecutionStatus = "Completed"`)).count < n) {
      if (Date.now() > deadline) {
        const seen = (await client.workflow.count(query)).count;
        const stuck = ids.find((id) => ![...side.started.keys()].some((w) => w.startsWith(`${id}-`)));
        if (stuck) console.error(JSON.stringify((await client.schedule.getHandle(stuck).describe()).info));
        throw new Error(
          `${side.name}: ${n} runs did not all complete in time (${seen} started, ${side.started.size} steps ran)`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const serverCpuMs = server0 === undefined ? undefined : processCpuMs(serverPid!) - server0;
    const workerCpuMs = ownCpuMs() - worker0;
    if (profiler && n === N) {
      const { main, workers } = await profiler.stop();
      profiles[side.name].push({ label: 'main thread', profile: main });
      profiles[side.name].push(
        ...workers.map((w) => ({ label: `workflow thread ${w.title}`, profile: w.profile })),
      );
    } else if (profiler) await profiler.stop();
    const wfStartMs: number[] = [];
    for await (const wf of client.workflow.list({ query })) {
      if (side.started.has(wf.workflowId)) wfStartMs.push(wf.startTime.getTime() - due);
    }
    const firstStepMs = [...side.started.values()].map((t) => t - due);
    if (wfStartMs.length !== n || firstStepMs.length !== n) {
      throw new Error(`${side.name}: saw ${wfStartMs.length} starts and ${firstStepMs.length} steps of ${n}`);
    }
    await pool(ids, (id) => side.remove(id));
    return { wfStartMs, firstStepMs, serverCpuMs, workerCpuMs, createMs };
  }

  const profiler = PROFILE_DIR ? await ThreadProfiler.attach() : undefined;
  const profiles: Record<SideName, { label: string; profile: CpuProfile }[]> = { ours: [], raw: [] };
  const totals: Record<SideName, BurstFigures> = {
    ours: { wfStartMs: [], firstStepMs: [], serverCpuMs: 0, workerCpuMs: 0 },
    raw: { wfStartMs: [], firstStepMs: [], serverCpuMs: 0, workerCpuMs: 0 },
  };
  const perRound: string[] = [];

  async function measure(): Promise<void> {
    try {
      // Warm-up (JIT, task queues, worker caches), not counted; it also tells how fast schedules are created.
      let createRate = Infinity;
      for (const side of [sides.ours, sides.raw]) {
        const w = await burst(side, WARMUP, 5_000);
        createRate = Math.min(createRate, WARMUP / Math.max(w.createMs, 1));
      }
      const leadMs = intArg('lead', Math.ceil(10 + (4 * N) / createRate / 1000)) * 1000;
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? [sides.ours, sides.raw] : [sides.raw, sides.ours];
        const line: string[] = [];
        for (const side of order) {
          const b = await burst(side, N, leadMs);
          const t = totals[side.name];
          t.wfStartMs.push(...b.wfStartMs);
          t.firstStepMs.push(...b.firstStepMs);
          t.serverCpuMs = b.serverCpuMs === undefined ? undefined : t.serverCpuMs! + b.serverCpuMs;
          t.workerCpuMs += b.workerCpuMs;
          const p99 = (xs: number[]) =>
            (
              quantile(
                [...xs].sort((a, c) => a - c),
                0.99,
              ) / 1000
            ).toFixed(2);
          line.push(`${side.name} start p99 ${p99(b.wfStartMs)} s, step p99 ${p99(b.firstStepMs)} s`);
        }
        perRound.push(`round ${round + 1}: ${line.join(' | ')}`);
      }
    } finally {
      oursWorker.shutdown();
      rawWorker.shutdown();
    }
  }
  await Promise.all([oursWorker.run(), rawWorker.run(), measure()]);
  const { promises, bytes } = await promisesPerFiredRun();

  /**
   * Promises per fired run in the sandbox, each side: one job of each side on workers of their own,
   * triggered once (a trigger is a scheduled run: `TemporalScheduledStartTime` is set); the run's history
   * is then replayed by a replay worker, which runs workflows on this thread, where the promise hook of
   * bench/promise-count.ts sees them (a replay counts the same promises every time; one live run's count
   * moved by one or two between runs).
   */
  async function promisesPerFiredRun(): Promise<{
    promises: Record<SideName, number>;
    bytes: Record<SideName, Record<HistoryPart, number>>;
  }> {
    const started = new Map<string, number>();
    const lastRun = {} as Record<SideName, string>;
    const queues = { ours: `burst-ours-count-${tag}`, raw: `burst-raw-count-${tag}` };
    const countWorkers = [
      await createWorker({
        connection: native,
        taskQueue: queues.ours,
        steps: recordingSteps(started),
        workflowBundle: oursBundle,
        workerOptions: OURS_WORKER_OPTIONS,
      }),
      await Worker.create({
        connection: native,
        taskQueue: queues.raw,
        activities: recordingSteps(started),
        workflowBundle: rawBundle,
      }),
    ];
    const countScheduler = new PipelineScheduler(client, {
      taskQueue: queues.ours,
      ...(RUN_METADATA_OFF ? { runMetadata: false } : {}),
    });
    const far = new Date(Date.now() + 12 * 3600_000);
    const ids = { ours: `burst-ours-count-${tag}`, raw: `burst-raw-count-${tag}` };
    await countScheduler.schedule(oneStep, {
      jobId: ids.ours,
      calendar: calendar(far),
      timezone: 'UTC',
      args: [1],
    });
    await client.schedule.create({
      ...rawScheduleOptions(ids.raw, far, queues.raw),
    });
    const trigger = async (side: SideName): Promise<void> => {
      const before = new Set(started.keys());
      // A schedule's run is named after its action time, to the second: a second trigger within the same
      // second would name a run that exists, and start none.
      await sleepUntil(Math.ceil(Date.now() / 1000) * 1000 + 50);
      if (side === 'ours') await countScheduler.triggerJob(ids.ours);
      else await client.schedule.getHandle(ids.raw).trigger();
      const deadline = Date.now() + 30_000;
      let workflowId: string | undefined;
      while (!(workflowId = [...started.keys()].find((w) => !before.has(w)))) {
        if (Date.now() > deadline)
          throw new Error(`${side}: the triggered run's step did not start within 30 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
      await client.workflow.getHandle(workflowId).result();
      lastRun[side] = workflowId;
    };
    const run = async () => {
      try {
        for (const side of ['ours', 'raw'] as const) await trigger(side);
      } finally {
        for (const w of countWorkers) w.shutdown();
      }
    };
    await Promise.all([...countWorkers.map((w) => w.run()), run()]);
    const histories = {
      ours: await client.workflow.getHandle(lastRun.ours).fetchHistory(),
      raw: await client.workflow.getHandle(lastRun.raw).fetchHistory(),
    };
    // The run-started and run-finished sinks of ours are called (not during replay), so they must exist.
    const none = { fn: () => undefined };
    const counted = {
      ours: await promisesOfReplay(oursBundle, histories.ours, {
        tflow: { runStarted: none, runFinished: none },
      }),
      raw: await promisesOfReplay(rawBundle, histories.raw),
    };
    const bytes = {
      ours: bytesByPart(histories.ours.events ?? []),
      raw: bytesByPart(histories.raw.events ?? []),
    };
    await countScheduler.removeJob(ids.ours);
    await client.schedule.getHandle(ids.raw).delete();
    return { promises: counted, bytes };
  }

  const runs = N * ROUNDS;
  console.log(
    `${N} jobs due at one instant, ${ROUNDS} round(s) per side (sides alternate), server ${address} (pid ${serverPid ?? 'not visible'}), our worker options ${JSON.stringify(OURS_WORKER_OPTIONS)}${RUN_METADATA_OFF ? ', our jobs with runMetadata: false' : ''}`,
  );
  for (const line of perRound) console.log(line);
  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return [quantile(s, 0.5), quantile(s, 0.99), s[s.length - 1]!].map((ms) => ms / 1000);
  };
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(2).padStart(6)).join(' ');
  const sideLabels = { ours: 'PipelineScheduler jobs', baseline: 'raw schedules' };
  const rows: SummaryRow[] = [];
  console.log('\n(seconds)               ours p50    p99    max |  raw p50    p99    max | ratio p50  p99');
  for (const [label, key] of [
    ['nominal -> wf start', 'wfStartMs'],
    ['nominal -> first step', 'firstStepMs'],
  ] as const) {
    const o = stats(totals.ours[key]);
    const r = stats(totals.raw[key]);
    console.log(
      `${label.padEnd(22)} ${fmt(o)}   | ${fmt(r)}   | ${(o[0]! / r[0]!).toFixed(2).padStart(8)} ${(o[1]! / r[1]!).toFixed(2).padStart(5)}`,
    );
    for (const [q, i] of [
      ['p50', 0],
      ['p99', 1],
    ] as const)
      rows.push({
        bench: 'fire-burst',
        metric: `${label} ${q}, ${N} due at once`,
        unit: 's',
        ours: sideLabels.ours,
        oursValue: o[i]!,
        baseline: sideLabels.baseline,
        baselineValue: r[i]!,
        ratio: o[i]! / r[i]!,
      });
  }
  const perRun = (ms: number | undefined) => (ms === undefined ? undefined : ms / runs);
  console.log('\nCPU per fired run (ms)   ours    raw  ratio');
  for (const [label, key] of [
    ['server', 'serverCpuMs'],
    ['worker', 'workerCpuMs'],
  ] as const) {
    const o = perRun(totals.ours[key]);
    const r = perRun(totals.raw[key]);
    if (o === undefined || r === undefined) {
      console.log(`${label.padEnd(22)} (server process not visible)`);
      rows.push({
        bench: 'fire-burst',
        metric: `${label} CPU per fired run`,
        unit: 'ms',
        ours: sideLabels.ours,
        oursValue: 0,
        skipped: 'the server process is not visible from here',
      });
    } else {
      console.log(
        `${label.padEnd(22)} ${o.toFixed(2).padStart(6)} ${r.toFixed(2).padStart(6)} ${(o / r).toFixed(2).padStart(6)}`,
      );
      rows.push({
        bench: 'fire-burst',
        metric: `${label} CPU per fired run`,
        unit: 'ms',
        ours: sideLabels.ours,
        oursValue: o,
        baseline: sideLabels.baseline,
        baselineValue: r,
        ratio: o / r,
      });
    }
  }
  console.log(
    `promises per fired run in the sandbox: ours ${promises.ours}, raw ${promises.raw} (one triggered run a side, counted by replaying its history)`,
  );
  const total = (b: Record<HistoryPart, number>) => HISTORY_PARTS.reduce((sum, p) => sum + b[p], 0);
  for (const side of ['ours', 'raw'] as const) {
    const parts = HISTORY_PARTS.map((p) => `${p} ${bytes[side][p]}`).join(', ');
    console.log(`history of one fired run, ${side}: ${total(bytes[side])} B (${parts})`);
  }
  rows.push({
    bench: 'fire-burst',
    metric: 'history bytes per fired run',
    unit: 'B',
    ours: sideLabels.ours,
    oursValue: total(bytes.ours),
    baseline: sideLabels.baseline,
    baselineValue: total(bytes.raw),
    ratio: total(bytes.ours) / total(bytes.raw),
  });
  rows.push({
    bench: 'fire-burst',
    metric: 'promises per fired run in the workflow sandbox',
    unit: 'promises',
    ours: sideLabels.ours,
    oursValue: promises.ours,
    baseline: sideLabels.baseline,
    baselineValue: promises.raw,
    ratio: promises.ours / promises.raw,
  });
  reportRows(rows);
  if (PROFILE_DIR) {
    profiler!.close();
    writeProfiles(PROFILE_DIR, profiles, runs, [oursBundle.code, rawBundle.code]);
  }
  await native.close();
  await connection.close();
}

/** The bursts' profiles, by side: files, flame graphs, top functions, and the sampled CPU per fired run by phase. */
function writeProfiles(
  dir: string,
  profiles: Record<SideName, { label: string; profile: CpuProfile }[]>,
  runs: number,
  bundles: string[],
): void {
  mkdirSync(dir, { recursive: true });
  const reader = new FrameReader(bundles.map((b) => new BundleIndex(b)));
  const summary = {
    ours: summarize(
      profiles.ours.map((p) => p.profile),
      reader,
    ),
    raw: summarize(
      profiles.raw.map((p) => p.profile),
      reader,
    ),
  };
  const ms = (us: number) => (us / 1000 / runs).toFixed(3).padStart(8);
  const lines = [
    `sampled CPU per fired run (ms), ${runs} runs a side, by phase:`,
    `${''.padEnd(44)}     ours      raw`,
  ];
  for (const phase of PHASES)
    lines.push(`${phase.padEnd(44)} ${ms(summary.ours.byPhase[phase])} ${ms(summary.raw.byPhase[phase])}`);
  lines.push(
    `${'all of it (sampled, idle left out)'.padEnd(44)} ${ms(summary.ours.totalUs)} ${ms(summary.raw.totalUs)}`,
  );
  for (const side of ['ours', 'raw'] as const) {
    profiles[side].forEach((p, i) =>
      writeFileSync(path.join(dir, `${side}-${i + 1}.cpuprofile`), JSON.stringify(p.profile)),
    );
    writeFileSync(
      path.join(dir, `${side}.folded`),
      profiles[side].map((p) => foldedStacks(p.profile, reader)).join(''),
    );
    writeFileSync(
      path.join(dir, `${side}.svg`),
      flameGraphSvg(profiles[side], reader, `fire-burst ${side}, ${runs} fired runs`),
    );
    const top = [...summary[side].bySelf].sort((a, b) => b[1] - a[1]);
    writeFileSync(
      path.join(dir, `${side}.top.txt`),
      top.map(([name, us]) => `${ms(us)} ms/run  ${name}`).join('\n') + '\n',
    );
    lines.push(
      '',
      `top of the profile, ${side} (self time per fired run):`,
      ...top.slice(0, 15).map(([name, us]) => `  ${ms(us)}  ${name}`),
    );
  }
  writeFileSync(path.join(dir, 'summary.txt'), lines.join('\n') + '\n');
  console.log(`\n${lines.join('\n')}\nprofiles written to ${dir}`);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

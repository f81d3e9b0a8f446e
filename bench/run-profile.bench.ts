/*
 * Where the CPU of a run goes, by phase, ours against the hand-written workflow doing the same three no-op
 * activities: V8 CPU profiles of the worker process's main thread and of its workflow threads (the SDK's
 * worker threads running the sandbox), taken with the inspector module over each side's runs (workers as
 * they run in production: threaded, V8 context reused), each sample put in a phase: the client's start
 * path and result (the bench's client is in the same process), payload and protobuf encode/decode, the
 * SDK's workflow activation, our interpreter, interceptors, sinks and logging, the activities, the rest of
 * the SDK worker, garbage collection. Beside it: the thread CPU /proc counted over the same runs, and the
 * bytes of one run (input, result, user metadata, the whole history) and the promises one run creates in
 * the sandbox (bench/promise-count.ts).
 *
 * Written to the output folder (`--out`, default .tflow/bench/run-profile/, ignored by git), for each
 * side: `<side>-main.cpuprofile` and `<side>-workflow-<n>.cpuprofile` (open them in Chrome DevTools'
 * Performance panel or speedscope), `<side>.folded` (folded stacks of all its threads: flamegraph.pl,
 * inferno, speedscope), `<side>.svg` (a flame graph, coloured by phase) and `<side>.top.txt` (the
 * functions by self time); and `summary.txt`, the tables printed. Sampling slows the process a little
 * (about alike on both sides): read the phases against each other, not as absolute costs; `run-cost` has
 * the unprofiled CPU per run.
 *
 *   npm run bench -- run-profile
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 npx tsx bench/run-profile.bench.ts --runs 200 --inflight 10 --rounds 2
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PipelineClient } from '../src/client/runs/pipeline-client';
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
import { bytesByPart, type HistoryPart } from './history-bytes';
import { noopSides } from './noop-sides';
import { ownThreadsCpuMs } from './process-cpu';
import { promisesPerRun } from './promise-count';
import { intArg, reportRows, type SummaryRow } from './summary';
import { timeInFlight } from './timing';

const RUNS = intArg('runs', 200);
const ROUNDS = intArg('rounds', 2);
const IN_FLIGHT = intArg('inflight', 10);
const WARMUP = intArg('warmup', 30);
const INTERVAL_US = intArg('interval-us', 250);
const OUT = ((): string => {
  const i = process.argv.indexOf('--out');
  return path.resolve(i >= 0 ? process.argv[i + 1]! : path.join(__dirname, '..', '.tflow/bench/run-profile'));
})();
const BENCH = 'run-profile';

type Side = 'pipeline' | 'handWritten' | 'pipelineLocal' | 'handWrittenLocal';
const LABELS: Record<Side, string> = {
  pipeline: 'pipeline (regular steps)',
  handWritten: 'hand-written (regular)',
  pipelineLocal: 'pipeline (local steps)',
  handWrittenLocal: 'hand-written (local)',
};
const FILES: Record<Side, string> = {
  pipeline: 'pipeline-regular',
  handWritten: 'hand-written-regular',
  pipelineLocal: 'pipeline-local',
  handWrittenLocal: 'hand-written-local',
};
const PAIRS: [Side, Side][] = [
  ['pipeline', 'handWritten'],
  ['pipelineLocal', 'handWrittenLocal'],
];
const THREADS = ['main thread', 'workflow threads', 'core and V8 helpers'] as const;
type Thread = (typeof THREADS)[number];
const BYTES = ['input', 'result', 'user metadata', 'search attributes', 'history'] as const;

interface Measured {
  main: CpuProfile[];
  workflow: { title: string; profile: CpuProfile }[];
  threadsMs: Record<Thread, number>;
  runs: number;
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const helperThreads = new Set(ownThreadsCpuMs().keys());
  const bench = await noopSides();
  const { client, regular, local } = bench;
  const workers = await bench.startWorkers();
  const pipelines = new PipelineClient(client, { taskQueue: workers.pipelineQueue });
  const starts: Record<Side, (x: number) => Promise<string>> = {
    pipeline: async (x) => (await pipelines.start(regular, [x])).workflowId,
    handWritten: bench.startHandWritten('baselineWorkflow', workers.baselineQueue),
    pipelineLocal: async (x) => (await pipelines.start(local, [x])).workflowId,
    handWrittenLocal: bench.startHandWritten('baselineLocalWorkflow', workers.baselineQueue),
  };
  const runners: Record<Side, (x: number) => Promise<unknown>> = {
    pipeline: (x) => pipelines.run(regular, [x]),
    handWritten: bench.handWritten('baselineWorkflow', workers.baselineQueue),
    pipelineLocal: (x) => pipelines.run(local, [x]),
    handWrittenLocal: bench.handWritten('baselineLocalWorkflow', workers.baselineQueue),
  };
  const sides = Object.keys(LABELS) as Side[];
  const reader = new FrameReader([
    new BundleIndex(bench.bundles.pipeline),
    new BundleIndex(bench.bundles.baseline),
  ]);
  const profiler = await ThreadProfiler.attach();
  const measured = Object.fromEntries(
    sides.map((s) => [
      s,
      { main: [], workflow: [], threadsMs: Object.fromEntries(THREADS.map((t) => [t, 0])), runs: 0 },
    ]),
  ) as unknown as Record<Side, Measured>;
  const bytes = {} as Record<Side, Record<(typeof BYTES)[number], number> & { events: number }>;
  const threadSample = (): Record<Thread, number> => {
    const parts = Object.fromEntries(THREADS.map((t) => [t, 0])) as Record<Thread, number>;
    for (const [thread, ms] of ownThreadsCpuMs()) {
      const [tid, name] = [Number(thread.split(' ')[0]), thread.slice(thread.indexOf(' ') + 1)];
      const part: Thread =
        tid === process.pid
          ? 'main thread'
          : name === 'node' && !helperThreads.has(thread)
            ? 'workflow threads'
            : 'core and V8 helpers';
      parts[part] += ms;
    }
    return parts;
  };

  const measure = async () => {
    try {
      for (const side of sides) await timeInFlight(WARMUP, IN_FLIGHT, runners[side]); // not counted
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of sides.map((_, i) => sides[(i + round) % sides.length]!)) {
          const before = threadSample();
          await profiler.start(INTERVAL_US);
          await timeInFlight(RUNS, IN_FLIGHT, runners[side]);
          const profiles = await profiler.stop();
          const after = threadSample();
          const m = measured[side];
          m.main.push(profiles.main);
          m.workflow.push(...profiles.workers);
          for (const t of THREADS) m.threadsMs[t] += after[t] - before[t];
          m.runs += RUNS;
        }
      }
      // Bytes of one run of each side, from its history.
      for (const side of sides) {
        const handle = client.workflow.getHandle(await starts[side](1));
        await handle.result();
        const events = (await handle.fetchHistory()).events ?? [];
        const parts = bytesByPart(events);
        const total = Object.values(parts).reduce((a, b) => a + b, 0);
        const pick = (p: HistoryPart) => parts[p];
        bytes[side] = {
          input: pick('input'),
          result: pick('result'),
          'user metadata': pick('user metadata'),
          'search attributes': pick('search attributes'),
          history: total,
          events: events.length,
        };
      }
    } finally {
      workers.pipelineWorker.shutdown();
      workers.baselineWorker.shutdown();
    }
  };
  await Promise.all([workers.pipelineWorker.run(), workers.baselineWorker.run(), measure()]);
  profiler.close();

  // Promises per run in the sandbox: on workers in debug mode (workflows on this thread, where the hook is).
  const debug = await bench.startWorkers({ debugMode: true });
  const debugPipelines = new PipelineClient(client, { taskQueue: debug.pipelineQueue });
  const debugRunners: Record<Side, () => Promise<unknown>> = {
    pipeline: () => debugPipelines.run(regular, [1]),
    handWritten: () => bench.handWritten('baselineWorkflow', debug.baselineQueue)(1),
    pipelineLocal: () => debugPipelines.run(local, [1]),
    handWrittenLocal: () => bench.handWritten('baselineLocalWorkflow', debug.baselineQueue)(1),
  };
  let promises = {} as Record<Side, number>;
  await Promise.all([
    debug.pipelineWorker.run(),
    debug.baselineWorker.run(),
    (async () => {
      try {
        promises = await promisesPerRun(sides, (side) => debugRunners[side]());
      } finally {
        debug.pipelineWorker.shutdown();
        debug.baselineWorker.shutdown();
      }
    })(),
  ]);

  const out: string[] = [];
  const say = (line = '') => {
    out.push(line);
    console.log(line);
  };
  const rows: SummaryRow[] = [];
  const ms = (us: number, runs: number) => us / 1000 / runs;
  const f = (n: number) => n.toFixed(3).padStart(8);
  const summaries = Object.fromEntries(
    sides.map((s) => {
      const m = measured[s];
      const mainOnly = summarize(m.main, reader);
      const wfOnly = summarize(
        m.workflow.map((w) => w.profile),
        reader,
      );
      const all = summarize([...m.main, ...m.workflow.map((w) => w.profile)], reader);
      return [s, { mainOnly, wfOnly, all }];
    }),
  ) as Record<Side, Record<'mainOnly' | 'wfOnly' | 'all', ReturnType<typeof summarize>>>;

  say(
    `${RUNS} runs per side in each of ${ROUNDS} rounds (rotating order), ${IN_FLIGHT} in flight, sampled every ${INTERVAL_US} us; profiles in ${OUT}`,
  );
  for (const [ours, base] of PAIRS) {
    const o = summaries[ours];
    const b = summaries[base];
    const runsO = measured[ours].runs;
    const runsB = measured[base].runs;
    say(`\nCPU per run sampled (ms), ${LABELS[ours]} against ${LABELS[base]}, by phase (both threads):`);
    say(`${'phase'.padEnd(44)} ${'ours'.padStart(8)} ${'theirs'.padStart(8)} ${'more'.padStart(8)}`);
    const line = (label: string, oUs: number, bUs: number) =>
      say(
        `${label.padEnd(44)} ${f(ms(oUs, runsO))} ${f(ms(bUs, runsB))} ${f(ms(oUs, runsO) - ms(bUs, runsB))}`,
      );
    for (const phase of PHASES) {
      line(phase, o.all.byPhase[phase], b.all.byPhase[phase]);
      rows.push(
        row(
          `sampled CPU per run: ${phase}`,
          ours,
          base,
          ms(o.all.byPhase[phase], runsO),
          ms(b.all.byPhase[phase], runsB),
        ),
      );
    }
    line('all of it (sampled, idle left out)', o.all.totalUs, b.all.totalUs);
    line('  of it: main thread', o.mainOnly.totalUs, b.mainOnly.totalUs);
    line('  of it: workflow threads', o.wfOnly.totalUs, b.wfOnly.totalUs);
    line('under our workflow code (inclusive)', o.all.underOurWorkflowUs, b.all.underOurWorkflowUs);
    rows.push(
      row('sampled CPU per run: all of it', ours, base, ms(o.all.totalUs, runsO), ms(b.all.totalUs, runsB)),
    );
    say('thread CPU per run from /proc over the same runs (ms):');
    for (const t of THREADS) {
      const ov = measured[ours].threadsMs[t] / runsO;
      const bv = measured[base].threadsMs[t] / runsB;
      say(`${`  ${t}`.padEnd(44)} ${f(ov)} ${f(bv)} ${f(ov - bv)}`);
      rows.push(row(`thread CPU per run (profiled): ${t}`, ours, base, ov, bv));
    }
    say(
      `${'promises per run in the sandbox'.padEnd(44)} ${String(promises[ours]).padStart(8)} ${String(promises[base]).padStart(8)} ${String(promises[ours] - promises[base]).padStart(8)}`,
    );
    rows.push({
      ...row('promises per run in the workflow sandbox', ours, base, promises[ours], promises[base]),
      unit: 'promises',
    });
    say('bytes of one run (B):');
    for (const p of [...BYTES, 'events'] as const) {
      say(
        `${`  ${p}`.padEnd(44)} ${String(bytes[ours][p]).padStart(8)} ${String(bytes[base][p]).padStart(8)} ${String(bytes[ours][p] - bytes[base][p]).padStart(8)}`,
      );
      if (p !== 'events')
        rows.push({ ...row(`bytes per run: ${p}`, ours, base, bytes[ours][p], bytes[base][p]), unit: 'B' });
    }
  }
  for (const side of sides) {
    const s = summaries[side].all;
    const top = [...s.bySelf].sort((a, b) => b[1] - a[1]);
    const runs = measured[side].runs;
    const lines = top.map(
      ([name, us]) =>
        `${f(ms(us, runs))} ms/run  ${((us / s.totalUs) * 100).toFixed(1).padStart(5)}%  ${name}`,
    );
    writeFileSync(
      path.join(OUT, `${FILES[side]}.top.txt`),
      `${LABELS[side]}: self time per run, both threads\n${lines.join('\n')}\n`,
    );
    say(`\ntop of the profile, ${LABELS[side]} (self time per run, both threads):`);
    for (const l of lines.slice(0, 15)) say(`  ${l}`);
  }
  for (const side of sides) {
    const m = measured[side];
    const file = FILES[side];
    m.main.forEach((p, i) =>
      writeFileSync(path.join(OUT, `${file}-main-r${i + 1}.cpuprofile`), JSON.stringify(p)),
    );
    m.workflow.forEach((w, i) =>
      writeFileSync(path.join(OUT, `${file}-workflow-${i + 1}.cpuprofile`), JSON.stringify(w.profile)),
    );
    const all = [
      ...m.main.map((p) => ({ label: 'main thread', profile: p })),
      ...m.workflow.map((w) => ({ label: `workflow thread ${w.title}`, profile: w.profile })),
    ];
    writeFileSync(path.join(OUT, `${file}.folded`), all.map((a) => foldedStacks(a.profile, reader)).join(''));
    writeFileSync(
      path.join(OUT, `${file}.svg`),
      flameGraphSvg(all, reader, `${LABELS[side]}, ${m.runs} runs`),
    );
  }
  writeFileSync(path.join(OUT, 'summary.txt'), `${out.join('\n')}\n`);
  console.log(`\nwritten to ${OUT}`);
  reportRows(rows);
  await bench.close();
}

function row(metric: string, ours: Side, base: Side, o: number, b: number): SummaryRow {
  return {
    bench: BENCH,
    metric,
    unit: 'ms',
    ours: LABELS[ours],
    oursValue: o,
    baseline: LABELS[base],
    baselineValue: b,
    ...(b > 0 ? { ratio: o / b } : {}),
  };
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

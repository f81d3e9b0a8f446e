/*
 * Where the time of a run goes: the CPU one run costs, ours against the hand-written workflow doing the
 * same three no-op activities, split by who spends it (Linux /proc):
 * - the worker process's main thread (client calls, activities, the SDK's payload and gRPC handling),
 * - its workflow threads (the sandbox that runs workflow code: interpreter, SDK, promise hook),
 * - the SDK's native core threads, and V8's helper threads (GC),
 * - the Temporal server process;
 * and the promises a run creates in the workflow sandbox, counted with a V8 promise hook on a worker in
 * debug mode (which runs workflows on the main thread): the SDK captures a stack trace for each one (its
 * stack-trace query), which makes them the sandbox's main per-run cost.
 *
 * Sides run in turns (rotating order) with the same runs in flight, pipeline and hand-written alike, so
 * every side meets the same server. Lower is better; a ratio over 1 is what ours costs more.
 *
 *   npm run bench -- run-cost
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 npx tsx bench/run-cost.bench.ts --runs 100 --rounds 3 --inflight 20
 */
import { PipelineClient } from '../src/client/runs/pipeline-client';
import { noopSides, type NoopWorkers } from './noop-sides';
import { ownThreadsCpuMs, pidListeningOn, processCpuMs } from './process-cpu';
import { promisesPerRun } from './promise-count';
import { intArg, reportRows, type SummaryRow } from './summary';
import { timeInFlight } from './timing';

const RUNS = intArg('runs', 100);
const ROUNDS = intArg('rounds', 3);
const IN_FLIGHT = intArg('inflight', 20);
const BENCH = 'run-cost';

type Side = 'pipeline' | 'handWritten' | 'pipelineLocal' | 'handWrittenLocal';
const LABELS: Record<Side, string> = {
  pipeline: 'pipeline (regular steps)',
  handWritten: 'hand-written (regular)',
  pipelineLocal: 'pipeline (local steps)',
  handWrittenLocal: 'hand-written (local)',
};
const PAIRS: [Side, Side][] = [
  ['pipeline', 'handWritten'],
  ['pipelineLocal', 'handWrittenLocal'],
];
/** Who spends the CPU. */
const PARTS = ['main thread', 'workflow threads', 'core and V8 helpers', 'Temporal server'] as const;
type Part = (typeof PARTS)[number];

async function main(): Promise<void> {
  // Threads alive before any worker exists are V8's and libuv's helpers; those after are the SDK's.
  const helperThreads = new Set(ownThreadsCpuMs().keys());
  const bench = await noopSides();
  const { address, client, regular, local } = bench;
  const serverPid = pidListeningOn(Number(address.split(':').pop()));
  /** What each side runs, on the task queues of `workers`. */
  const runnersOn = (workers: NoopWorkers): Record<Side, (x: number) => Promise<unknown>> => {
    const pipelines = new PipelineClient(client, { taskQueue: workers.pipelineQueue });
    return {
      pipeline: (x) => pipelines.run(regular, [x]),
      handWritten: bench.handWritten('baselineWorkflow', workers.baselineQueue),
      pipelineLocal: (x) => pipelines.run(local, [x]),
      handWrittenLocal: bench.handWritten('baselineLocalWorkflow', workers.baselineQueue),
    };
  };
  const sides = Object.keys(LABELS) as Side[];
  const rows: SummaryRow[] = [];

  // 1. CPU per run, by part.
  const measured = await bench.startWorkers();
  const workers = [measured.pipelineWorker, measured.baselineWorker];
  const runners = runnersOn(measured);
  const cpu = Object.fromEntries(
    sides.map((s) => [s, Object.fromEntries(PARTS.map((p) => [p, 0]))]),
  ) as Record<Side, Record<Part, number>>;
  const sample = (): Record<Part, number> => {
    const parts = Object.fromEntries(PARTS.map((p) => [p, 0])) as Record<Part, number>;
    for (const [thread, ms] of ownThreadsCpuMs()) {
      const [tid, name] = [Number(thread.split(' ')[0]), thread.slice(thread.indexOf(' ') + 1)];
      const part: Part =
        tid === process.pid
          ? 'main thread'
          : name === 'node' && !helperThreads.has(thread)
            ? 'workflow threads'
            : 'core and V8 helpers';
      parts[part] += ms;
    }
    parts['Temporal server'] = serverPid ? processCpuMs(serverPid) : 0;
    return parts;
  };
  const pool = (side: Side, n: number) => timeInFlight(n, IN_FLIGHT, runners[side]);
  const measure = async () => {
    try {
      for (const side of sides) await pool(side, 10); // warm-up, not counted
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of sides.map((_, i) => sides[(i + round) % sides.length]!)) {
          const before = sample();
          await pool(side, RUNS);
          const after = sample();
          for (const p of PARTS) cpu[side][p] += after[p] - before[p];
        }
      }
    } finally {
      for (const w of workers) w.shutdown();
    }
  };
  await Promise.all([...workers.map((w) => w.run()), measure()]);
  const parts = PARTS.filter((p) => p !== 'Temporal server' || serverPid);
  const perRun = (side: Side, part: Part | 'all') =>
    (part === 'all' ? parts.reduce((sum, p) => sum + cpu[side][p], 0) : cpu[side][part]) / (RUNS * ROUNDS);
  for (const [ours, base] of PAIRS) {
    for (const part of [...parts, 'all'] as const) {
      rows.push({
        bench: BENCH,
        metric: `CPU per run: ${part === 'all' ? 'all of it' : part}`,
        unit: 'ms',
        ours: LABELS[ours],
        oursValue: perRun(ours, part),
        baseline: LABELS[base],
        baselineValue: perRun(base, part),
        ratio: perRun(ours, part) / perRun(base, part),
      });
    }
  }
  if (!serverPid) console.log(`server CPU not measured: no process of this user listens on ${address}`);

  // 2. Promises per run in the workflow sandbox (debug mode: workflows on this thread, where the hook is).
  const debug = await bench.startWorkers({ debugMode: true });
  const debugWorkers = [debug.pipelineWorker, debug.baselineWorker];
  const debugRunners = runnersOn(debug);
  let counted = {} as Record<Side, number>;
  const count = async () => {
    try {
      counted = await promisesPerRun(sides, (side) => debugRunners[side](1));
    } finally {
      for (const w of debugWorkers) w.shutdown();
    }
  };
  await Promise.all([...debugWorkers.map((w) => w.run()), count()]);
  for (const [ours, base] of PAIRS) {
    rows.push({
      bench: BENCH,
      metric: 'promises per run in the workflow sandbox',
      unit: 'promises',
      ours: LABELS[ours],
      oursValue: counted[ours],
      baseline: LABELS[base],
      baselineValue: counted[base],
      ratio: counted[ours] / counted[base],
    });
  }
  console.log(
    `${RUNS} runs per side in each of ${ROUNDS} rounds, ${IN_FLIGHT} in flight; promises: one run per side`,
  );
  reportRows(rows);
  await bench.close();
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

/*
 * Pipeline overhead: a 3-step no-op pipeline through `pipelineWorkflow` (regular steps, then local steps),
 * against hand-written workflows calling the same three activities (bench/baseline-workflows.ts: regular,
 * then local activities) and against BullMQ flows of three chained jobs (bench/bullmq-side.ts, when
 * redis-server is on PATH). Same server, same process, SDK default worker settings, one worker per
 * library. Two measures:
 * - throughput at N runs in flight (a pool of N loops, each starting its next run when one ends), for each
 *   `--inflight` level; sides take turns in rounds whose order rotates, so drift in the machine's load
 *   hits all alike. A round runs `--runs` / `--rounds` runs of a side, and at least `--min-waves` (4) times
 *   N: with fewer, a round at 50 in flight was one wave of 50 runs started at once, its time that of the
 *   wave's slowest run (two such samples a side in a run of `--runs 100 --rounds 2`);
 * - single-run latency: runs one at a time, p50 and p99, ours against hand-written (each of the two
 *   after a run on the other side's worker).
 * Eager start: the same pipelines through a PipelineClient whose Client is on the worker's NativeConnection
 * (Temporal hands the first workflow task back in the start response), against the regular sides; and,
 * to tell eager start from the connection kind, the regular steps on that NativeConnection with
 * `eagerStart: false`.
 *
 *   npm run bench -- pipeline-overhead
 *   TEMPORAL_ADDRESS=localhost:7233 npx tsx bench/pipeline-overhead.bench.ts --runs 100 --inflight 10,50 --latency-runs 50
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { PipelineClient } from '../src/client/runs/pipeline-client';
import { bullmqUnavailable, startBullmq, type BullmqSide } from './bullmq-side';
import { noopSides } from './noop-sides';
import { intArg, intListArg, reportRows, type SummaryRow } from './summary';
import { percentile, timeInFlight } from './timing';

const RUNS = intArg('runs', 200);
const ROUNDS = intArg('rounds', 2);
const LEVELS = intListArg('inflight', [10, 50]);
const LATENCY_RUNS = intArg('latency-runs', 100);
/** Runs per round and level at least this many times the level (see the header). */
const MIN_WAVES = intArg('min-waves', 4);
const BENCH = 'pipeline-overhead';

type Side =
  | 'pipeline'
  | 'pipelineLocal'
  | 'handWritten'
  | 'handWrittenLocal'
  | 'bullmq'
  | 'pipelineEager'
  | 'pipelineLocalEager'
  | 'pipelineNative';
const LABELS: Record<Side, string> = {
  pipeline: 'pipeline (regular steps)',
  pipelineLocal: 'pipeline (local steps)',
  handWritten: 'hand-written (regular)',
  handWrittenLocal: 'hand-written (local)',
  bullmq: 'BullMQ flow (3 chained jobs)',
  pipelineEager: 'pipeline (regular steps, eager start)',
  pipelineLocalEager: 'pipeline (local steps, eager start)',
  pipelineNative: 'pipeline (regular steps, NativeConnection, no eager start)',
};
/** Ours against its baseline, as the summary shows them. */
const PAIRS: [Side, Side][] = [
  ['pipeline', 'handWritten'],
  ['pipelineLocal', 'handWritten'],
  ['pipelineLocal', 'handWrittenLocal'],
  ['pipeline', 'bullmq'],
  ['pipelineLocal', 'bullmq'],
  ['pipelineEager', 'pipeline'],
  ['pipelineLocalEager', 'pipelineLocal'],
  ['pipelineEager', 'pipelineNative'],
];

async function main(): Promise<void> {
  const bench = await noopSides();
  const { native, client, regular, local } = bench;
  const { pipelineQueue, baselineQueue, pipelineWorker, baselineWorker } = await bench.startWorkers();
  const bullmqSkipped = bullmqUnavailable();
  const bullmq: BullmqSide | undefined = bullmqSkipped ? undefined : await startBullmq(Math.max(...LEVELS));
  if (bullmqSkipped) console.log(`BullMQ side skipped: ${bullmqSkipped}`);

  const pipelines = new PipelineClient(client, { taskQueue: pipelineQueue });
  // A client on the worker's NativeConnection: what eager start needs (PipelineClient asks by default).
  const nativeClient = new Client({ connection: native });
  const eager = new PipelineClient(nativeClient, { taskQueue: pipelineQueue });
  const nativeNotEager = new PipelineClient(nativeClient, { taskQueue: pipelineQueue, eagerStart: false });
  const eagerlyStarted = { asked: 0, started: 0 };
  const runEager = async (p: typeof regular, x: number, prefix: string) => {
    const handle = await eager.start(p, [x], { workflowId: `${prefix}-${randomUUID()}` });
    eagerlyStarted.asked++;
    if (handle.eagerlyStarted) eagerlyStarted.started++;
    return (await handle.result()).output;
  };
  const check = (side: Side, out: unknown, x: number) => {
    if (out !== x + 3) throw new Error(`${side} returned ${String(out)} for ${x}`);
  };
  const runners: Partial<Record<Side, (x: number) => Promise<unknown>>> = {
    pipeline: (x) => pipelines.run(regular, [x], { workflowId: `bench-p-${randomUUID()}` }),
    pipelineLocal: (x) => pipelines.run(local, [x], { workflowId: `bench-pl-${randomUUID()}` }),
    handWritten: bench.handWritten('baselineWorkflow', baselineQueue),
    handWrittenLocal: bench.handWritten('baselineLocalWorkflow', baselineQueue),
    ...(bullmq ? { bullmq: (x: number) => bullmq.run(x) } : {}),
    pipelineEager: (x) => runEager(regular, x, 'bench-pe'),
    pipelineLocalEager: (x) => runEager(local, x, 'bench-ple'),
    pipelineNative: (x) => nativeNotEager.run(regular, [x], { workflowId: `bench-pn-${randomUUID()}` }),
  };
  const sides = Object.keys(runners) as Side[];
  const runOnce = async (side: Side, x: number) => check(side, await runners[side]!(x), x);

  /** `n` runs, `inFlight` at a time; wall time in ms. */
  const pool = (side: Side, n: number, inFlight: number) =>
    timeInFlight(n, inFlight, (x) => runOnce(side, x));

  const rows: SummaryRow[] = [];
  const measure = async () => {
    try {
      for (const side of sides) await pool(side, 10, 10); // warm-up: JIT, caches, task queues; not counted
      for (const level of LEVELS) {
        const elapsed = Object.fromEntries(sides.map((s) => [s, 0])) as Record<Side, number>;
        const perRound = Math.max(1, Math.round(RUNS / ROUNDS), MIN_WAVES * level);
        for (let round = 0; round < ROUNDS; round++) {
          const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
          for (const side of order) elapsed[side] += await pool(side, perRound, level);
        }
        const throughput = (side: Side) => (perRound * ROUNDS * 1000) / elapsed[side];
        for (const side of sides) {
          console.log(`${level} in flight  ${LABELS[side].padEnd(30)} ${throughput(side).toFixed(1)} runs/s`);
        }
        for (const [ours, base] of PAIRS) {
          const metric = `throughput, ${level} in flight`;
          if (!runners[base]) {
            rows.push({
              bench: BENCH,
              metric,
              unit: 'runs/s',
              ours: LABELS[ours],
              oursValue: 0,
              skipped: `${LABELS[base]}: ${bullmqSkipped}`,
            });
            continue;
          }
          rows.push({
            bench: BENCH,
            metric,
            unit: 'runs/s',
            ours: LABELS[ours],
            oursValue: throughput(ours),
            baseline: LABELS[base],
            baselineValue: throughput(base),
            ratio: throughput(ours) / throughput(base),
          });
        }
      }
      // Single-run latency: one run at a time, sides interleaved run by run, in an order where each side of
      // the two pairs the targets read (pipeline / hand-written, regular and local) comes right after a run
      // on the other worker: before 2026-12-04 the regular-step pipeline always came right after a run on its
      // own worker (the NativeConnection side, whose end that worker may still be handling) and the
      // hand-written workflow never did, a bias of the bench whatever its size.
      const latencies = {
        handWrittenLocal: [] as number[],
        pipeline: [] as number[],
        handWritten: [] as number[],
        pipelineLocal: [] as number[],
        pipelineEager: [] as number[],
        pipelineLocalEager: [] as number[],
        pipelineNative: [] as number[],
      };
      const latencySides = Object.keys(latencies) as (keyof typeof latencies)[];
      for (let i = 0; i < LATENCY_RUNS; i++) {
        for (const side of latencySides) {
          const start = performance.now();
          await runOnce(side, i);
          latencies[side].push(performance.now() - start);
        }
      }
      for (const [ours, base] of [
        ['pipeline', 'handWritten'],
        ['pipelineLocal', 'handWrittenLocal'],
        ['pipelineEager', 'pipeline'],
        ['pipelineLocalEager', 'pipelineLocal'],
        ['pipelineEager', 'pipelineNative'],
      ] as const) {
        for (const p of [50, 99]) {
          const o = percentile(latencies[ours], p);
          const b = percentile(latencies[base], p);
          rows.push({
            bench: BENCH,
            metric: `latency p${p}, one run at a time`,
            unit: 'ms',
            ours: LABELS[ours],
            oursValue: o,
            baseline: LABELS[base],
            baselineValue: b,
            ratio: o / b,
          });
        }
      }
    } finally {
      pipelineWorker.shutdown();
      baselineWorker.shutdown();
    }
  };
  await Promise.all([pipelineWorker.run(), baselineWorker.run(), measure()]);
  console.log(
    `${RUNS} runs per side and level in ${ROUNDS} rounds (rotating order), at least ${MIN_WAVES} x the level per round; latency: ${LATENCY_RUNS} runs per side`,
  );
  console.log(
    `eager start: ${eagerlyStarted.started} of ${eagerlyStarted.asked} eager-side runs eagerly started`,
  );
  reportRows(rows);
  await bullmq?.close();
  await bench.close();
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

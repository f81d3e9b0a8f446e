/*
 * Scale: create, list, describe, compute stats of, and delete N jobs through PipelineScheduler, against
 * the same operations through the raw Temporal ScheduleClient on the same schedules, side by side in the
 * same process (alternating chunks). Prints the time per operation of each phase, the ratio (ours / raw),
 * and how a full listing grows from the smallest to the largest of `--sizes` (jobs are created up to each
 * size in turn; N is the largest). Describes and removals are timed on `--sample` jobs per side spread
 * over all N (a call's cost does not depend on how many of them are timed, and a full pass at 10,000 would
 * double the run). Stats: `getStats()` against the raw reads it stands for (every schedule listed and
 * described, and the count of running runs), at `--stats-at` jobs per side (default: the smallest size),
 * since each call describes every schedule of the namespace. A progress line at most every 10 s.
 * `--alerts on` (the default) gives our scheduler scheduler-wide `onMissed`, `onSilent` and
 * `expectSuccessWithin`, as docs/operations.md shows, so that each job also has its watchdog (started
 * on create, told on remove), served by a watchdog worker process of the bench's own; `--alerts off`
 * measures bare jobs.
 *
 *   npm run bench -- scheduler-ops                          # sizes 1000,10000, alerts on: ~28 min on 2 cores
 *   TEMPORAL_ADDRESS=localhost:7233 npx tsx bench/scheduler-ops.bench.ts --sizes 100,300 --sample 100
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { readEnv } from '../src/config';
import { pipeline, toPipelineSpec } from '../src/pipeline';
import { PipelineScheduler } from '../src/client/jobs/pipeline-scheduler';
import { PIPELINE_WORKFLOW_TYPE } from '../src/workflows/run-types';
import { rawJobSchedules } from './raw-schedule';
import { startWatchdogWorker } from './watchdog-process';
import { intArg as arg, intListArg, reportRows, type SummaryRow } from './summary';

const SIZES = [...new Set(intListArg('sizes', [1000, 10000]))].sort((a, b) => a - b);
const N = SIZES[SIZES.length - 1]!;
const ROUNDS = arg('rounds', 1);
const CONCURRENCY = arg('concurrency', 16);
const LIST_SAMPLE = SIZES[0]!;
const CHUNK = arg('chunk', 50);
/** Jobs per side described, and removed each way (warm, cold), once all N exist: spread over the N. */
const SAMPLE = Math.min(arg('sample', 1000), Math.floor(N / 2));
/** getStats() describes every schedule: timed once this many jobs per side exist (the smallest size). */
const STATS_AT = arg('stats-at', SIZES[0]!);
if (!SIZES.includes(STATS_AT)) throw new Error(`--stats-at must be one of --sizes (${SIZES.join(',')})`);
const LIST_REPEAT = SIZES.length > 1 ? 2 : 4;
const STATS_REPEAT = 2;
/** The server dies with the bench run (bench/run.ts started it): jobs left after the timed removals stay. */
const SERVER_IS_EPHEMERAL = process.env.TFLOW_BENCH_SERVER === 'ephemeral';
/** A progress line at most this often, so that a long run is visibly alive. */
const PROGRESS_EVERY_MS = 10_000;
const ALERTS = ((): boolean => {
  const i = process.argv.indexOf('--alerts');
  const value = i >= 0 ? process.argv[i + 1] : 'on';
  if (value !== 'on' && value !== 'off') throw new Error('--alerts must be on or off');
  return value === 'on';
})();

const began = performance.now();
let lastProgress = 0;
/** Prints `[elapsed] phase done/total` (at most every PROGRESS_EVERY_MS unless `force`). */
function progress(phase: string, done: number, total: number, force = false): void {
  const now = performance.now();
  if (!force && now - lastProgress < PROGRESS_EVERY_MS) return;
  lastProgress = now;
  const elapsed = ((now - began) / 1000).toFixed(0).padStart(5);
  console.log(`[${elapsed} s] ${phase} ${done}/${total} per side`);
}

type Phase = 'create' | 'describe' | 'stats' | 'delete' | 'delete-cold';
interface Side {
  name: 'temporal-flow' | 'raw';
  create: (id: string) => Promise<unknown>;
  describe: (id: string) => Promise<unknown>;
  /** A full listing; returns how many of this round's jobs it saw. */
  list: (prefix: string) => Promise<number>;
  /** The stats of every job of the namespace. */
  stats: () => Promise<unknown>;
  /** Delete through the client that created the job. */
  remove: (id: string) => Promise<unknown>;
  /** Delete through a client that has never seen the job. */
  removeCold: (id: string) => Promise<unknown>;
}

/** Runs `fn` over `ids` with CONCURRENCY calls in flight; returns the elapsed milliseconds. */
async function pool(ids: string[], fn: (id: string) => Promise<unknown>): Promise<number> {
  const start = performance.now();
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < ids.length; i = next++) await fn(ids[i]!);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return performance.now() - start;
}

/** gRPC codes of a server that did not answer in time: a read that got one is asked again. */
const RETRIED_CODES = new Set([4 /* DEADLINE_EXCEEDED */, 14 /* UNAVAILABLE */]);
const MAX_READ_ATTEMPTS = 3;
const grpcCode = (err: unknown): number | undefined => {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') return code;
  }
  return undefined;
};

/** What the timed reads of one side met: retries after a server deadline, and the slowest call. */
interface ReadStats {
  retried: number;
  slowestMs: number;
}

/**
 * A read (describe) timed as one call, asked again up to MAX_READ_ATTEMPTS times when the server did not
 * answer in time (at 10,000 jobs per side the embedded server has stalled for over a minute in the middle
 * of the describes, and let a call pass its deadline): the time of the failed tries counts, and so does the
 * retry, printed with the results.
 */
function retriedRead(fn: (id: string) => Promise<unknown>, stats: ReadStats) {
  return async (id: string): Promise<unknown> => {
    const start = performance.now();
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return await fn(id);
        } catch (err) {
          const code = grpcCode(err);
          if (attempt >= MAX_READ_ATTEMPTS || code === undefined || !RETRIED_CODES.has(code)) throw err;
          stats.retried++;
          console.log(`  ${id}: code ${code} on attempt ${attempt}, asked again`);
        }
      }
    } finally {
      stats.slowestMs = Math.max(stats.slowestMs, performance.now() - start);
    }
  };
}

/**
 * Runs one phase for both sides in alternating chunks (order flipped every chunk), so that both meet the
 * same server conditions (the dev server's background work after a burst weighs on whoever comes next).
 */
async function sideBySide(
  phase: string,
  sides: Side[],
  ids: Record<Side['name'], string[]>,
  op: (side: Side) => (id: string) => Promise<unknown>,
  totals: Record<Side['name'], number>,
): Promise<void> {
  const n = ids[sides[0]!.name].length;
  progress(phase, 0, n, true);
  for (let from = 0, k = 0; from < n; from += CHUNK, k++) {
    for (const side of k % 2 === 0 ? sides : [...sides].reverse()) {
      totals[side.name] += await pool(ids[side.name].slice(from, from + CHUNK), op(side));
    }
    progress(phase, Math.min(from + CHUNK, n), n);
  }
}

/**
 * Waits until visibility shows `expected` jobs of each prefix (listings are eventually consistent): one
 * raw listing counts both sides, and the pause between listings grows, since each reads every schedule.
 */
async function waitListed(client: Client, prefixes: string[], expected: number): Promise<void> {
  const deadline = Date.now() + 120_000 + 20 * expected;
  for (let pause = 250; ; pause = Math.min(pause * 2, 4_000)) {
    const seen = prefixes.map(() => 0);
    for await (const s of client.schedule.list()) {
      const i = prefixes.findIndex((p) => s.scheduleId.startsWith(p));
      if (i >= 0) seen[i]!++;
    }
    if (seen.every((n) => n === expected)) return;
    progress(`waiting for visibility to list ${expected} jobs per side, seen`, Math.min(...seen), expected);
    if (Date.now() > deadline)
      throw new Error(`visibility never showed ${expected} jobs of ${prefixes.join(', ')}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

/** Times full listings, alternating sides, LIST_REPEAT times each. */
async function timeLists(sides: Side[], prefixes: Record<Side['name'], string>, expected: number) {
  const ms: Record<Side['name'], number> = { 'temporal-flow': 0, raw: 0 };
  for (let i = 0; i < LIST_REPEAT; i++) {
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
      const start = performance.now();
      const seen = await side.list(prefixes[side.name]);
      ms[side.name] += performance.now() - start;
      if (seen !== expected) throw new Error(`listing saw ${seen} jobs, expected ${expected}`);
    }
  }
  return { 'temporal-flow': ms['temporal-flow'] / LIST_REPEAT, raw: ms.raw / LIST_REPEAT };
}

async function main(): Promise<void> {
  const env = readEnv();
  const address = env.temporalAddress ?? 'localhost:7233';
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: env.namespace });
  const taskQueue = `bench-${randomUUID()}`;
  const etl = pipeline('bench-etl').step('extract').step('load');
  const watchdogTaskQueue = `${taskQueue}-watchdog`;
  // Nothing fires (the jobs are paused), so no alert is ever sent to this address.
  const never = { webhook: { url: 'http://127.0.0.1:9/never-called' } };
  const options = {
    taskQueue,
    watchdogTaskQueue,
    ...(ALERTS ? { onMissed: never, onSilent: never, expectSuccessWithin: '25h' as const } : {}),
  };
  const watchdogWorker = ALERTS ? await startWatchdogWorker(address, watchdogTaskQueue) : undefined;
  const scheduler = new PipelineScheduler(client, options);
  // A scheduler that did not create the jobs: its removeJob checks ownership first (describe + delete).
  const coldScheduler = new PipelineScheduler(client, options);
  const spec = toPipelineSpec(etl);
  // The same schedules as temporal-flow creates, so that only our layer is measured.
  const rawSchedule = rawJobSchedules({
    spec,
    taskQueue,
    cron: '0 2 * * *',
    timezone: 'Europe/Paris',
    args: ['eu'],
    paused: true,
  });

  const ours: Side = {
    name: 'temporal-flow',
    create: (id) =>
      scheduler.schedule(etl, {
        jobId: id,
        cron: '0 2 * * *',
        timezone: 'Europe/Paris',
        args: ['eu'],
        paused: true,
      }),
    describe: (id) => scheduler.getJob(id),
    list: async (prefix) => (await scheduler.listJobs()).filter((j) => j.id.startsWith(prefix)).length,
    stats: () => scheduler.getStats(),
    remove: (id) => scheduler.removeJob(id),
    removeCold: (id) => coldScheduler.removeJob(id),
  };
  const raw: Side = {
    name: 'raw',
    create: (id) => client.schedule.create(rawSchedule(id)),
    describe: (id) => client.schedule.getHandle(id).describe(),
    list: async (prefix) => {
      let n = 0;
      for await (const s of client.schedule.list()) if (s.scheduleId.startsWith(prefix)) n++;
      return n;
    },
    // What getStats() reads, raw: every schedule described (its counters), and the runs in flight.
    stats: async () => {
      const ids: string[] = [];
      for await (const s of client.schedule.list()) ids.push(s.scheduleId);
      let skipped = 0;
      let next = 0;
      // 16 describes in flight, as listJobs({ details: true }) does.
      const lane = async () => {
        for (let i = next++; i < ids.length; i = next++) {
          skipped += (await client.schedule.getHandle(ids[i]!).describe()).info.numActionsSkippedOverlap;
        }
      };
      await Promise.all(Array.from({ length: 16 }, lane));
      const running = await client.workflow.count(
        `WorkflowType = '${PIPELINE_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'`,
      );
      return { jobs: ids.length, skipped, running: running.count };
    },
    remove: (id) => client.schedule.getHandle(id).delete(),
    removeCold: (id) => client.schedule.getHandle(id).delete(),
  };

  const sides = [ours, raw];
  const zero = (): Record<Side['name'], number> => ({ 'temporal-flow': 0, raw: 0 });
  const totals: Record<Phase, Record<Side['name'], number>> = {
    create: zero(),
    describe: zero(),
    stats: zero(),
    delete: zero(),
    'delete-cold': zero(),
  };
  const reads: Record<Side['name'], ReadStats> = {
    'temporal-flow': { retried: 0, slowestMs: 0 },
    raw: { retried: 0, slowestMs: 0 },
  };
  const listAt: Record<number, Record<Side['name'], number>> = Object.fromEntries(
    SIZES.map((n) => [n, zero()]),
  );

  console.log(
    `${N} jobs per side (${SIZES.join(', ')}), alerts ${ALERTS ? 'on' : 'off'}, ${ROUNDS} round(s), chunks of ${CHUNK} alternating sides, ` +
      `${CONCURRENCY} calls in flight; describe and remove (warm, cold) on ${SAMPLE} of them each, stats at ${STATS_AT}`,
  );
  for (let round = 0; round < ROUNDS; round++) {
    const tag = randomUUID().slice(0, 8);
    const prefixes = { 'temporal-flow': `bench-tf-${tag}-`, raw: `bench-raw-${tag}-` };
    const ids = {
      'temporal-flow': Array.from({ length: N }, (_, i) => `${prefixes['temporal-flow']}${i}`),
      raw: Array.from({ length: N }, (_, i) => `${prefixes.raw}${i}`),
    };
    // Created up to each size in turn, the full listing timed at each.
    let created = 0;
    for (const size of SIZES) {
      const slice = {
        'temporal-flow': ids['temporal-flow'].slice(created, size),
        raw: ids.raw.slice(created, size),
      };
      await sideBySide(`create (up to ${size})`, sides, slice, (s) => s.create, totals.create);
      created = size;
      await waitListed(client, Object.values(prefixes), size);
      progress(`full listings at ${size}`, 0, LIST_REPEAT, true);
      const listed = await timeLists(sides, prefixes, size);
      for (const name of ['temporal-flow', 'raw'] as const) {
        listAt[size]![name] += listed[name] / ROUNDS;
      }
      if (size === STATS_AT) {
        // One pass untimed first: the first pass after a burst of creates meets a server still busy with
        // it (21 s against 10 to 12 s for the next three at 1,000 jobs per side), whichever side it is.
        progress(`stats at ${size} (warm-up, not timed)`, 0, 1, true);
        await sides[1]!.stats();
        for (let i = 0; i < STATS_REPEAT; i++) {
          for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
            progress(`stats at ${size} (${side.name})`, i, STATS_REPEAT, true);
            const start = performance.now();
            await side.stats();
            totals.stats[side.name] += (performance.now() - start) / STATS_REPEAT;
          }
        }
      }
    }
    // Sampled among all N (every k-th id), so the calls meet the namespace at its full size.
    const spread = (list: string[], offset: number) =>
      Array.from({ length: SAMPLE }, (_, i) => list[Math.floor(((i + offset / 2) * N) / SAMPLE)]!);
    const sample = (offset: number) => ({
      'temporal-flow': spread(ids['temporal-flow'], offset),
      raw: spread(ids.raw, offset),
    });
    await sideBySide(
      'describe',
      sides,
      sample(0),
      (s) => retriedRead(s.describe, reads[s.name]),
      totals.describe,
    );
    // A sample removed by the scheduler that created the jobs, another by one that never saw them.
    const warm = sample(0);
    const cold = sample(1);
    await sideBySide('remove', sides, warm, (s) => s.remove, totals.delete);
    await sideBySide('remove (cold)', sides, cold, (s) => s.removeCold, totals['delete-cold']);
    if (!SERVER_IS_EPHEMERAL) {
      // Not timed: the jobs the samples left, removed so that a shared server is left as it was.
      const removed = new Set([...warm.raw, ...cold.raw, ...warm['temporal-flow'], ...cold['temporal-flow']]);
      const rest = [...ids.raw, ...ids['temporal-flow']].filter((id) => !removed.has(id));
      progress('clean-up (not timed)', 0, rest.length, true);
      await pool(rest, (id) => client.schedule.getHandle(id).delete());
    }
    progress('done', N, N, true);
  }

  const rows: SummaryRow[] = [];
  const row = (metric: string, unit: string, ours: number, raw: number) =>
    rows.push({
      bench: 'scheduler-ops',
      metric,
      unit,
      ours: ALERTS ? 'PipelineScheduler, alerts on' : 'PipelineScheduler',
      oursValue: ours,
      baseline: 'raw ScheduleClient',
      baselineValue: raw,
      ratio: ours / raw,
    });
  for (const phase of ['create', 'describe', 'delete', 'delete-cold'] as Phase[]) {
    // Time per call, with CONCURRENCY calls in flight: creates of all N, the others on samples of SAMPLE.
    const ops = (phase === 'create' ? N : SAMPLE) * ROUNDS;
    row(
      phase === 'create'
        ? `create, ${N} jobs, ${CONCURRENCY} in flight`
        : `${phase}, ${SAMPLE} of ${N} jobs, ${CONCURRENCY} in flight` +
            (phase === 'describe' && reads['temporal-flow'].retried + reads.raw.retried > 0
              ? ` (asked again: ours ${reads['temporal-flow'].retried}, raw ${reads.raw.retried})`
              : ''),
      'ms/op',
      totals[phase]['temporal-flow'] / ops,
      totals[phase].raw / ops,
    );
  }
  // Each side lists the whole namespace (both sides' jobs): what a listing really pays.
  for (const size of SIZES) {
    row(`full listing at ${size} jobs per side`, 'ms', listAt[size]!['temporal-flow'], listAt[size]!.raw);
  }
  row(
    `stats at ${STATS_AT} jobs per side`,
    'ms',
    totals.stats['temporal-flow'] / ROUNDS,
    totals.stats.raw / ROUNDS,
  );
  console.log(
    `describes: slowest call ours ${reads['temporal-flow'].slowestMs.toFixed(0)} ms, raw ${reads.raw.slowestMs.toFixed(0)} ms; ` +
      `asked again after a server deadline: ours ${reads['temporal-flow'].retried}, raw ${reads.raw.retried}`,
  );
  console.log(`sizes ${SIZES.join(', ')}; listing growth x${(N / LIST_SAMPLE).toFixed(0)} jobs:`);
  for (const side of ['temporal-flow', 'raw'] as const) {
    const first = listAt[LIST_SAMPLE]![side];
    const last = listAt[N]![side];
    console.log(
      `  ${side.padEnd(14)} ${first.toFixed(1)} ms -> ${last.toFixed(1)} ms (x${(last / first).toFixed(1)})`,
    );
  }
  reportRows(rows);
  watchdogWorker?.stdin?.end();
  await connection.close();
}

void main().catch((err: unknown) => {
  console.error(err);
  // Exit, not exitCode: the watchdog worker process and the connections would keep this one alive (it
  // waited 35 minutes after a failed describe, its server and workers still running); the worker ends
  // when its stdin closes with this process.
  process.exit(1);
});

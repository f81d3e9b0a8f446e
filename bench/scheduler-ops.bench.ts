/*
 * Scale: create, list, describe, compute stats of, and delete N jobs through PipelineScheduler, against
 * the same operations through the raw Temporal ScheduleClient on the same schedules, side by side in the
 * same process (alternating chunks). Prints the time per operation of each phase, the ratio (ours / raw),
 * and how a full listing grows from the smallest to the largest of `--sizes` (jobs are created up to each
 * size in turn; N is the largest). Stats: `getStats()` against the raw reads it stands for (every schedule
 * listed and described, and the count of running runs).
 *
 *   npm run bench -- scheduler-ops                          # sizes 1000,10000: slow
 *   TEMPORAL_ADDRESS=localhost:7233 npx tsx bench/scheduler-ops.bench.ts --sizes 100,300 --chunk 50
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client, Connection, type ScheduleOptions } from '@temporalio/client';
import { readEnv } from '../src/config';
import { pipeline, toPipelineSpec } from '../src/pipeline';
import { PipelineScheduler } from '../src/client/pipeline-scheduler';
import { runStartOptions } from '../src/client/run-start';
import { JOB_MEMO_KEY } from '../src/client/job-memo';
import { ACTION_MEMO_KEY, encodeJobRecord, type JobRecord } from '../src/client/job-record';
import { PIPELINE_WORKFLOW_TYPE } from '../src/workflows/run-types';
import { JOB_SEARCH_ATTRIBUTE } from '../src/workflows/search-attributes';
import { intArg as arg, intListArg, reportRows, type SummaryRow } from './summary';

const SIZES = [...new Set(intListArg('sizes', [1000, 10000]))].sort((a, b) => a - b);
const N = SIZES[SIZES.length - 1]!;
if (N % 2 !== 0) throw new Error('the largest of --sizes must be even: half the jobs are deleted each way');
const ROUNDS = arg('rounds', 1);
const CONCURRENCY = arg('concurrency', 8);
const LIST_SAMPLE = SIZES[0]!;
const CHUNK = arg('chunk', 50);
const LIST_REPEAT = SIZES.length > 1 ? 3 : 5;
const STATS_REPEAT = 2;

type Phase = 'create' | 'describe' | 'list' | 'stats' | 'delete' | 'delete-cold';
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

/**
 * Runs one phase for both sides in alternating chunks (order flipped every chunk), so that both meet the
 * same server conditions (the dev server's background work after a burst weighs on whoever comes next).
 */
async function sideBySide(
  sides: Side[],
  ids: Record<Side['name'], string[]>,
  op: (side: Side) => (id: string) => Promise<unknown>,
  totals: Record<Side['name'], number>,
): Promise<void> {
  const n = ids[sides[0]!.name].length;
  for (let from = 0, k = 0; from < n; from += CHUNK, k++) {
    for (const side of k % 2 === 0 ? sides : [...sides].reverse()) {
      totals[side.name] += await pool(ids[side.name].slice(from, from + CHUNK), op(side));
    }
  }
}

/** Waits until a listing shows `expected` jobs of `prefix` (listings are eventually consistent). */
async function waitListed(side: Side, prefix: string, expected: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await side.list(prefix)) !== expected) {
    if (Date.now() > deadline) throw new Error(`visibility never showed ${expected} jobs of ${prefix}`);
    await new Promise((r) => setTimeout(r, 100));
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
  const connection = await Connection.connect({ address: env.temporalAddress ?? 'localhost:7233' });
  const client = new Client({ connection, namespace: env.namespace });
  const taskQueue = `bench-${randomUUID()}`;
  const etl = pipeline('bench-etl').step('extract').step('load');
  const scheduler = new PipelineScheduler(client, { taskQueue });
  // A scheduler that did not create the jobs: its removeJob checks ownership first (describe + delete).
  const coldScheduler = new PipelineScheduler(client, { taskQueue });
  const spec = toPipelineSpec(etl);
  const trigger = { cron: '0 2 * * *', timezone: 'Europe/Paris' };
  const record: JobRecord = { v: 1, trigger, timezone: 'Europe/Paris', policies: {} };

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
    create: (id) =>
      client.schedule.create({
        scheduleId: id,
        spec: { cronExpressions: ['0 2 * * *'], timezone: 'Europe/Paris' },
        action: {
          type: 'startWorkflow',
          workflowType: PIPELINE_WORKFLOW_TYPE,
          workflowId: id,
          taskQueue,
          memo: { [ACTION_MEMO_KEY]: record },
          ...runStartOptions(spec, ['eu'], { job: { jobId: id } }),
        },
        policies: { overlap: 'SKIP', pauseOnFailure: false },
        state: { paused: true },
        // The same schedule as temporal-flow creates, so that only our layer is measured.
        memo: { [JOB_MEMO_KEY]: { v: 1, pipeline: spec.name } },
        typedSearchAttributes: [{ key: JOB_SEARCH_ATTRIBUTE, value: encodeJobRecord(record)! }],
      } satisfies ScheduleOptions),
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
    list: zero(),
    stats: zero(),
    delete: zero(),
    'delete-cold': zero(),
  };
  const listAt: Record<number, Record<Side['name'], number>> = Object.fromEntries(
    SIZES.map((n) => [n, zero()]),
  );

  console.log(
    `${N} jobs per side, ${ROUNDS} round(s), chunks of ${CHUNK} alternating sides, ${CONCURRENCY} calls in flight`,
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
    let full = zero();
    for (const size of SIZES) {
      const slice = {
        'temporal-flow': ids['temporal-flow'].slice(created, size),
        raw: ids.raw.slice(created, size),
      };
      await sideBySide(sides, slice, (s) => s.create, totals.create);
      created = size;
      for (const side of sides) await waitListed(side, prefixes[side.name], size);
      const listed = await timeLists(sides, prefixes, size);
      for (const name of ['temporal-flow', 'raw'] as const) {
        listAt[size]![name] += listed[name] / ROUNDS;
      }
      full = listed;
    }
    for (const name of ['temporal-flow', 'raw'] as const) totals.list[name] += full[name];
    for (let i = 0; i < STATS_REPEAT; i++) {
      for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
        const start = performance.now();
        await side.stats();
        totals.stats[side.name] += (performance.now() - start) / STATS_REPEAT;
      }
    }
    await sideBySide(sides, ids, (s) => s.describe, totals.describe);
    // Half the jobs are removed by the scheduler that created them, half by one that never saw them.
    const half = (list: string[]) => [list.slice(0, N / 2), list.slice(N / 2)] as const;
    const [warmTF, coldTF] = half(ids['temporal-flow']);
    const [warmRaw, coldRaw] = half(ids.raw);
    await sideBySide(sides, { 'temporal-flow': warmTF, raw: warmRaw }, (s) => s.remove, totals.delete);
    await sideBySide(
      sides,
      { 'temporal-flow': coldTF, raw: coldRaw },
      (s) => s.removeCold,
      totals['delete-cold'],
    );
    for (const side of sides) await waitListed(side, prefixes[side.name], 0);
  }

  const rows: SummaryRow[] = [];
  const row = (metric: string, unit: string, ours: number, raw: number) =>
    rows.push({
      bench: 'scheduler-ops',
      metric,
      unit,
      ours: 'PipelineScheduler',
      oursValue: ours,
      baseline: 'raw ScheduleClient',
      baselineValue: raw,
      ratio: ours / raw,
    });
  for (const phase of ['create', 'describe', 'delete', 'delete-cold'] as Phase[]) {
    // Time per call, with CONCURRENCY calls in flight. Each delete phase covers half the jobs.
    const ops = (phase.startsWith('delete') ? N / 2 : N) * ROUNDS;
    row(
      `${phase}, ${N} jobs, ${CONCURRENCY} in flight`,
      'ms/op',
      totals[phase]['temporal-flow'] / ops,
      totals[phase].raw / ops,
    );
  }
  // Each side lists the whole namespace (both sides' jobs): what a listing really pays.
  for (const size of SIZES) {
    row(`full listing at ${size} jobs per side`, 'ms', listAt[size]!['temporal-flow'], listAt[size]!.raw);
  }
  row(`stats of ${N} jobs per side`, 'ms', totals.stats['temporal-flow'] / ROUNDS, totals.stats.raw / ROUNDS);
  console.log(`sizes ${SIZES.join(', ')}; listing growth x${(N / LIST_SAMPLE).toFixed(0)} jobs:`);
  for (const side of ['temporal-flow', 'raw'] as const) {
    const first = listAt[LIST_SAMPLE]![side];
    const last = listAt[N]![side];
    console.log(
      `  ${side.padEnd(14)} ${first.toFixed(1)} ms -> ${last.toFixed(1)} ms (x${(last / first).toFixed(1)})`,
    );
  }
  reportRows(rows);
  await connection.close();
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

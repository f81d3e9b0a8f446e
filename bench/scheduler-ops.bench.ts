/*
 * Create, describe, list and delete N jobs through PipelineScheduler, against the same operations through
 * the raw Temporal ScheduleClient on the same schedules, side by side in the same process (alternating
 * chunks). Prints ops/s per phase, the
 * ratio (ours / raw; the target is within 10%), and how a full listing grows from 100 to N jobs.
 *
 *   npm run bench -- scheduler-ops              # N = 1000
 *   TEMPORAL_ADDRESS=localhost:7233 npx tsx bench/scheduler-ops.bench.ts --jobs 300 --rounds 2 --chunk 50
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

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const n = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number of 1 or more`);
  return n;
}
const N = arg('jobs', 1000);
if (N % 2 !== 0) throw new Error('--jobs must be even: half the jobs are deleted each way');
const ROUNDS = arg('rounds', 1);
const CONCURRENCY = arg('concurrency', 8);
const LIST_SAMPLE = Math.min(100, N);
const CHUNK = arg('chunk', 50);
const LIST_REPEAT = 5;

type Phase = 'create' | 'describe' | 'list' | 'delete' | 'delete-cold';
interface Side {
  name: 'temporal-flow' | 'raw';
  create: (id: string) => Promise<unknown>;
  describe: (id: string) => Promise<unknown>;
  /** A full listing; returns how many of this round's jobs it saw. */
  list: (prefix: string) => Promise<number>;
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
    remove: (id) => client.schedule.getHandle(id).delete(),
    removeCold: (id) => client.schedule.getHandle(id).delete(),
  };

  const sides = [ours, raw];
  const zero = (): Record<Side['name'], number> => ({ 'temporal-flow': 0, raw: 0 });
  const totals: Record<Phase, Record<Side['name'], number>> = {
    create: zero(),
    describe: zero(),
    list: zero(),
    delete: zero(),
    'delete-cold': zero(),
  };
  const listSmall = zero();
  const listFull = zero();

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
    const head = {
      'temporal-flow': ids['temporal-flow'].slice(0, LIST_SAMPLE),
      raw: ids.raw.slice(0, LIST_SAMPLE),
    };
    const tail = {
      'temporal-flow': ids['temporal-flow'].slice(LIST_SAMPLE),
      raw: ids.raw.slice(LIST_SAMPLE),
    };
    await sideBySide(sides, head, (s) => s.create, totals.create);
    for (const side of sides) await waitListed(side, prefixes[side.name], LIST_SAMPLE);
    const small = await timeLists(sides, prefixes, LIST_SAMPLE);
    await sideBySide(sides, tail, (s) => s.create, totals.create);
    for (const side of sides) await waitListed(side, prefixes[side.name], N);
    const full = await timeLists(sides, prefixes, N);
    for (const name of ['temporal-flow', 'raw'] as const) {
      listSmall[name] += small[name] / ROUNDS;
      listFull[name] += full[name] / ROUNDS;
      totals.list[name] += full[name];
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

  const rate = (ops: number, ms: number) => (ops * 1000) / ms;
  console.log('\nphase     temporal-flow ops/s      raw ops/s   ratio (ours/raw)');
  for (const phase of ['create', 'describe', 'list', 'delete', 'delete-cold'] as Phase[]) {
    // A listing returns N jobs: reported as jobs listed per second. Each delete phase covers half the jobs.
    const ops = (phase.startsWith('delete') ? N / 2 : N) * ROUNDS;
    const oursRate = rate(ops, totals[phase]['temporal-flow']);
    const rawRate = rate(ops, totals[phase].raw);
    console.log(
      `${phase.padEnd(11)} ${oursRate.toFixed(0).padStart(17)} ${rawRate.toFixed(0).padStart(14)} ${(oursRate / rawRate).toFixed(2).padStart(18)}`,
    );
  }
  console.log(
    `\nfull listing time (each side lists the whole namespace: 2 x jobs), ${LIST_SAMPLE} -> ${N} jobs per side:`,
  );
  for (const side of ['temporal-flow', 'raw'] as const) {
    console.log(
      `${side.padEnd(14)} ${listSmall[side].toFixed(1)} ms -> ${listFull[side].toFixed(1)} ms (x${(listFull[side] / listSmall[side]).toFixed(1)} for x${(N / LIST_SAMPLE).toFixed(0)} jobs)`,
    );
  }
  await connection.close();
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

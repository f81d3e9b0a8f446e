/*
 * Create, describe, list and delete N jobs through PipelineScheduler, against the same operations through
 * the raw Temporal ScheduleClient, in alternating rounds in the same process. Prints ops/s per phase, the
 * ratio (ours / raw; the target is within 10%), and how a full listing grows from 100 to N jobs.
 *
 *   npm run bench -- scheduler-ops              # N = 1000
 *   TEMPORAL_ADDRESS=localhost:7233 npx tsx bench/scheduler-ops.bench.ts --jobs 300 --rounds 2
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
const ROUNDS = arg('rounds', 2);
const CONCURRENCY = arg('concurrency', 8);
const LIST_SAMPLE = Math.min(100, N);

type Phase = 'create' | 'describe' | 'list' | 'delete';
interface Side {
  name: 'temporal-flow' | 'raw';
  create: (id: string) => Promise<unknown>;
  describe: (id: string) => Promise<unknown>;
  /** A full listing; returns how many of this round's jobs it saw. */
  list: (prefix: string) => Promise<number>;
  remove: (id: string) => Promise<unknown>;
}

async function pool(ids: string[], fn: (id: string) => Promise<unknown>): Promise<number> {
  const start = performance.now();
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < ids.length; i = next++) await fn(ids[i]!);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return performance.now() - start;
}

/** Times one full listing once visibility shows all `expected` jobs (listings are eventually consistent). */
async function timedList(side: Side, prefix: string, expected: number): Promise<number> {
  const deadline = Date.now() + 60_000;
  while ((await side.list(prefix)) < expected) {
    if (Date.now() > deadline) throw new Error(`visibility never showed ${expected} jobs`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const start = performance.now();
  const seen = await side.list(prefix);
  const ms = performance.now() - start;
  if (seen < expected) throw new Error(`listing lost jobs: ${seen} < ${expected}`);
  return ms;
}

async function main(): Promise<void> {
  const env = readEnv();
  const connection = await Connection.connect({ address: env.temporalAddress ?? 'localhost:7233' });
  const client = new Client({ connection, namespace: env.namespace });
  const taskQueue = `bench-${randomUUID()}`;
  const etl = pipeline('bench-etl').step('extract').step('load');
  const scheduler = new PipelineScheduler(client, { taskQueue });
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
          ...runStartOptions(spec, ['eu'], { jobId: id }),
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
  };

  const totals: Record<Side['name'], Record<Phase, number>> = {
    'temporal-flow': { create: 0, describe: 0, list: 0, delete: 0 },
    raw: { create: 0, describe: 0, list: 0, delete: 0 },
  };
  const listAt: Record<Side['name'], { small: number[]; full: number[] }> = {
    'temporal-flow': { small: [], full: [] },
    raw: { small: [], full: [] },
  };

  console.log(`${N} jobs, ${ROUNDS} round(s) per side, ${CONCURRENCY} calls in flight`);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [ours, raw] : [raw, ours];
    for (const side of order) {
      const prefix = `bench-${side.name}-${round}-${randomUUID().slice(0, 8)}-`;
      const ids = Array.from({ length: N }, (_, i) => `${prefix}${String(i).padStart(5, '0')}`);
      const t = totals[side.name];
      t.create += await pool(ids.slice(0, LIST_SAMPLE), side.create);
      listAt[side.name].small.push(await timedList(side, prefix, LIST_SAMPLE));
      t.create += await pool(ids.slice(LIST_SAMPLE), side.create);
      const full = await timedList(side, prefix, N);
      listAt[side.name].full.push(full);
      t.list += full;
      t.describe += await pool(ids, side.describe);
      t.delete += await pool(ids, side.remove);
      // Wait until the listing is empty again, so the next round lists only its own jobs.
      const deadline = Date.now() + 60_000;
      while ((await side.list(prefix)) > 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
    }
  }

  const rate = (ops: number, ms: number) => (ops * 1000) / ms;
  console.log('\nphase     temporal-flow ops/s      raw ops/s   ratio (ours/raw)');
  for (const phase of ['create', 'describe', 'list', 'delete'] as Phase[]) {
    // A listing returns N jobs: reported as jobs listed per second.
    const oursRate = rate(N * ROUNDS, totals['temporal-flow'][phase]);
    const rawRate = rate(N * ROUNDS, totals.raw[phase]);
    console.log(
      `${phase.padEnd(9)} ${oursRate.toFixed(0).padStart(19)} ${rawRate.toFixed(0).padStart(14)} ${(oursRate / rawRate).toFixed(2).padStart(18)}`,
    );
  }
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(`\nfull listing time, ${LIST_SAMPLE} -> ${N} jobs:`);
  for (const side of ['temporal-flow', 'raw'] as const) {
    const [small, full] = [avg(listAt[side].small), avg(listAt[side].full)];
    console.log(
      `${side.padEnd(14)} ${small.toFixed(1)} ms -> ${full.toFixed(1)} ms (x${(full / small).toFixed(1)} for x${(N / LIST_SAMPLE).toFixed(0)} jobs)`,
    );
  }
  await connection.close();
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

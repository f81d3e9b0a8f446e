/*
 * Bulk work: N items, each through the same three no-op steps (bench/noop-steps.ts: x -> x + 3), three
 * ways, one after another in this process on the same server:
 * - BullMQ (the baseline): a flow of three chained jobs per item (bench/bullmq-side.ts), added with
 *   `FlowProducer.addBulk`, `--add-chunk` flows a call, on a worker running `--inflight` jobs at once;
 * - one pipeline run per item: the 3-step pipeline with regular steps, `--inflight` runs in flight;
 * - batched: the items cut into batches of `--batch`, and one run per page of `--batches-per-run`
 *   batches (`--inflight` pages in flight) whose one node is `.map('processBatch', { concurrency })`
 *   with local steps, each batch running its items through the three steps in the worker.
 * Figures: items/s (wall time from the first submit to the last item done), and what each side keeps:
 * the sum of its workflows' histories (events, and bytes as encoded protobuf, read back with
 * `fetchHistory` after the side is done), for BullMQ the Redis memory above the start at its highest
 * (sampled every 100 ms) and the bytes its append-only file grew by (auto-rewrite off, so every byte
 * written counts). Ratios: items/s ours / BullMQ (above 1: ours is faster), and batched / per-item runs.
 * Each side first runs `--warmup` items, not counted.
 *
 *   npm run bench -- bulk --items 10000
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 npx tsx bench/bulk.bench.ts --items 300 --inflight 50 --batch 100
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { PipelineClient } from '../src/client/runs/pipeline-client';
import { pipeline } from '../src/pipeline';
import { bullmqUnavailable, startBullmq, type BullmqSide } from './bullmq-side';
import { noopSides } from './noop-sides';
import { noopSteps } from './noop-steps';
import { intArg, reportRows, type SummaryRow } from './summary';
import { timeInFlight } from './timing';

const ITEMS = intArg('items', 10_000);
const IN_FLIGHT = intArg('inflight', 50);
const BATCH = intArg('batch', 100);
/** Batches of a run's map in flight: the product's default. */
const MAP_CONCURRENCY = intArg('map-concurrency', 10);
/**
 * Batches one run maps over. A run's history is one marker per batch (holding the batch's results) and a
 * handful of events, and it holds each item three times: in the run's input, in its batch's marker and in
 * the run's output. So 100 batches of 100 numbers stay far from Temporal's limits (50,000 events and 50 MB
 * a history, 2 MB a payload: the run's input, a batch's result, the run's output); more items, or larger
 * ones, take more runs (smaller pages).
 */
const BATCHES_PER_RUN = intArg('batches-per-run', 100);
/** Flows per `FlowProducer.addBulk` call (one MULTI each). */
const ADD_CHUNK = intArg('add-chunk', 500);
const WARMUP = intArg('warmup', 20);
/** Histories read at once after a side. */
const READ_IN_FLIGHT = 16;
const BENCH = 'bulk';

type Side = 'bullmq' | 'perItem' | 'batched';
const LABELS: Record<Side, string> = {
  bullmq: 'BullMQ flows (3 chained jobs, addBulk)',
  perItem: 'one pipeline run per item (regular steps)',
  batched: `map over batches of ${BATCH} (local steps)`,
};

/** The three steps on one batch, item after item, in the worker that runs the map's local step. */
const bulkSteps = {
  ...noopSteps,
  async processBatch(items: number[]): Promise<number[]> {
    const out: number[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) {
      out[i] = await noopSteps.stepC(await noopSteps.stepB(await noopSteps.stepA(items[i]!)));
    }
    return out;
  },
};
const batched = pipeline('bench-bulk-batches', { steps: bulkSteps, localSteps: true }).map('processBatch', {
  concurrency: MAP_CONCURRENCY,
});

const chunks = <T>(xs: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(xs.length / size) }, (_, i) => xs.slice(i * size, (i + 1) * size));

const check = (side: Side, outputs: unknown[], items: number[]) => {
  if (outputs.length !== items.length)
    throw new Error(`${side}: ${outputs.length} results for ${items.length} items`);
  items.forEach((x, i) => {
    if (outputs[i] !== x + 3) throw new Error(`${side} returned ${String(outputs[i])} for ${x}`);
  });
};

/** The histories of `workflowIds`, summed: events, and bytes as the server sends them (protobuf). */
async function historiesOf(
  client: Client,
  workflowIds: string[],
): Promise<{ events: number; bytes: number }> {
  const sum = { events: 0, bytes: 0 };
  await timeInFlight(workflowIds.length, READ_IN_FLIGHT, async (i) => {
    const history = await client.workflow.getHandle(workflowIds[i]!).fetchHistory();
    sum.events += history.events?.length ?? 0;
    sum.bytes += temporal.api.history.v1.History.encode(history).finish().byteLength;
  });
  return sum;
}

interface Measured {
  ms: number;
  /** Workflows the side's measured items ran in. */
  workflows: number;
  events: number;
  bytes: number;
}

async function main(): Promise<void> {
  const bench = await noopSides();
  const { client, regular } = bench;
  const { pipelineQueue, pipelineWorker, baselineWorker } = await bench.startWorkers({}, bulkSteps);
  const pipelines = new PipelineClient(client, { taskQueue: pipelineQueue });
  const bullmqSkipped = bullmqUnavailable();
  const bullmq: BullmqSide | undefined = bullmqSkipped
    ? undefined
    : await startBullmq(IN_FLIGHT, { aofRewrite: false });
  if (bullmqSkipped) console.log(`BullMQ side skipped: ${bullmqSkipped}`);
  const items = Array.from({ length: ITEMS }, (_, i) => i);
  const warmupItems = items.slice(0, WARMUP);
  console.log(
    `${ITEMS} items; ${IN_FLIGHT} in flight (BullMQ worker concurrency, per-item runs, batched runs); batches of ${BATCH}, ` +
      `${BATCHES_PER_RUN} a run, map concurrency ${MAP_CONCURRENCY}; addBulk ${ADD_CHUNK} flows a call; ` +
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );

  /** N runs of the 3-step pipeline, IN_FLIGHT at a time. */
  const perItem = async (xs: number[]) => {
    const ids: string[] = [];
    const outputs: unknown[] = new Array(xs.length);
    const ms = await timeInFlight(xs.length, IN_FLIGHT, async (i) => {
      const workflowId = `bench-bulk-run-${randomUUID()}`;
      ids.push(workflowId);
      outputs[i] = await pipelines.run(regular, [xs[i]], { workflowId });
    });
    check('perItem', outputs, xs);
    return { ms, ids };
  };
  /** One run per page of batches, IN_FLIGHT runs at a time, each mapping over its batches. */
  const batchedRuns = async (xs: number[]) => {
    const pages = chunks(chunks(xs, BATCH), BATCHES_PER_RUN);
    const ids: string[] = [];
    const outputs: unknown[][] = new Array(pages.length);
    const ms = await timeInFlight(pages.length, IN_FLIGHT, async (p) => {
      const workflowId = `bench-bulk-batches-${randomUUID()}`;
      ids.push(workflowId);
      outputs[p] = (await pipelines.run(batched, [pages[p]], { workflowId })) as unknown[];
    });
    check('batched', outputs.flat(2), xs);
    return { ms, ids };
  };

  const measured: Partial<Record<Side, Measured>> = {};
  let redis: { peakBytes: number; aofBytes: number; endBytes: number } | undefined;
  const measure = async () => {
    try {
      if (bullmq) {
        check('bullmq', await bullmq.runBulk(warmupItems, ADD_CHUNK), warmupItems);
        const usedMemory = async () => Number((await bullmq.info()).used_memory);
        const aofSize = async () => Number((await bullmq.info()).aof_current_size);
        const [memoryAtStart, aofAtStart] = [await usedMemory(), await aofSize()];
        let peak = memoryAtStart;
        let sampling = true;
        const sampler = (async () => {
          while (sampling) {
            peak = Math.max(peak, await usedMemory());
            await new Promise((r) => setTimeout(r, 100));
          }
        })();
        // Bulk work in BullMQ is enqueued, not awaited item by item: the queue is the buffer and the worker's
        // concurrency bounds the jobs in flight, and `addBulk` adds many flows in one round trip (one MULTI),
        // which BullMQ's docs recommend for adding many jobs. Chunks of `--add-chunk` rather than one call:
        // a single MULTI of 30,000 jobs would hold Redis (and the client's memory) for the whole add, and the
        // worker can start on the first chunk while the next is added.
        const start = performance.now();
        const outputs = await bullmq.runBulk(items, ADD_CHUNK);
        const ms = performance.now() - start;
        sampling = false;
        await sampler;
        check('bullmq', outputs, items);
        redis = {
          peakBytes: Math.max(peak, await usedMemory()) - memoryAtStart,
          aofBytes: (await aofSize()) - aofAtStart,
          endBytes: (await usedMemory()) - memoryAtStart,
        };
        measured.bullmq = { ms, workflows: 0, events: 0, bytes: 0 };
        console.log(`${LABELS.bullmq}: ${((ITEMS * 1000) / ms).toFixed(1)} items/s`);
      }
      for (const [side, run] of [
        ['perItem', perItem],
        ['batched', batchedRuns],
      ] as const) {
        await run(warmupItems);
        const { ms, ids } = await run(items);
        console.log(
          `${LABELS[side]}: ${((ITEMS * 1000) / ms).toFixed(1)} items/s; reading ${ids.length} histories`,
        );
        measured[side] = { ms, workflows: ids.length, ...(await historiesOf(client, ids)) };
      }
    } finally {
      pipelineWorker.shutdown();
      baselineWorker.shutdown();
    }
  };
  await Promise.all([pipelineWorker.run(), baselineWorker.run(), measure()]);
  await bullmq?.close();
  await bench.close();

  const rate = (side: Side) => (ITEMS * 1000) / measured[side]!.ms;
  console.log(`\n${'side'.padEnd(44)} ${'items/s'.padStart(9)} ${'wall s'.padStart(8)}  kept`);
  for (const side of Object.keys(LABELS) as Side[]) {
    const m = measured[side];
    if (!m) {
      console.log(`${LABELS[side].padEnd(44)} skipped: ${bullmqSkipped}`);
      continue;
    }
    const kept =
      side === 'bullmq'
        ? `Redis memory +${(redis!.peakBytes / 1e6).toFixed(2)} MB at peak (+${(redis!.endBytes / 1e6).toFixed(2)} MB at the end), ` +
          `append-only file +${(redis!.aofBytes / 1e6).toFixed(2)} MB`
        : `${m.workflows} workflows, ${m.events} history events (${(m.events / ITEMS).toFixed(2)} an item), ` +
          `${(m.bytes / 1e6).toFixed(2)} MB (${(m.bytes / ITEMS).toFixed(0)} bytes an item)`;
    console.log(
      `${LABELS[side].padEnd(44)} ${rate(side).toFixed(1).padStart(9)} ${(m.ms / 1000).toFixed(1).padStart(8)}  ${kept}`,
    );
  }
  console.log(
    `load average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );

  const metric = (what: string) => `${what}, ${ITEMS} items`;
  const rows: SummaryRow[] = [];
  for (const ours of ['perItem', 'batched'] as const) {
    rows.push(
      measured.bullmq
        ? {
            bench: BENCH,
            metric: metric('throughput'),
            unit: 'items/s',
            ours: LABELS[ours],
            oursValue: rate(ours),
            baseline: LABELS.bullmq,
            baselineValue: rate('bullmq'),
            ratio: rate(ours) / rate('bullmq'),
          }
        : {
            bench: BENCH,
            metric: metric('throughput'),
            unit: 'items/s',
            ours: LABELS[ours],
            oursValue: rate(ours),
            skipped: `${LABELS[ours]} against ${LABELS.bullmq}: ${bullmqSkipped}`,
          },
    );
  }
  const pair = (what: string, unit: string, value: (s: Side) => number): SummaryRow => ({
    bench: BENCH,
    metric: metric(what),
    unit,
    ours: LABELS.batched,
    oursValue: value('batched'),
    baseline: LABELS.perItem,
    baselineValue: value('perItem'),
    ratio: value('batched') / value('perItem'),
  });
  rows.push(pair('throughput', 'items/s', rate));
  rows.push(pair('history events', 'events', (s) => measured[s]!.events));
  rows.push(pair('history size', 'MB', (s) => measured[s]!.bytes / 1e6));
  if (redis) {
    rows.push(
      {
        bench: BENCH,
        metric: metric('Redis memory at peak'),
        unit: 'MB',
        ours: LABELS.bullmq,
        oursValue: redis.peakBytes / 1e6,
      },
      {
        bench: BENCH,
        metric: metric('append-only file written'),
        unit: 'MB',
        ours: LABELS.bullmq,
        oursValue: redis.aofBytes / 1e6,
      },
    );
  }
  reportRows(rows);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

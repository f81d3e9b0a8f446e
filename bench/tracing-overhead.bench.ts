/*
 * Tracing overhead: the 3-step no-op pipeline (regular steps) with tracing off against the same pipeline
 * with tracing on (`createWorker({ tracing })`, `new PipelineClient(client, { tracing })`, the traced
 * workflow bundle), side by side in one process on one server. The traced side exports for real: OTLP
 * over HTTP (protobuf, as `tracing: true` does) through a batch span processor, to a local HTTP endpoint
 * of this process that reads each request and answers 200 (so span making, the sandbox's sink, encoding
 * and the POSTs are all counted; a collector's own work is not). Two measures, sides alternating:
 * - throughput at N runs in flight, rounds whose order rotates;
 * - single-run latency, p50 and p99, one run at a time.
 *
 *   npm run bench -- tracing-overhead
 *   TEMPORAL_ADDRESS=localhost:7233 npx tsx bench/tracing-overhead.bench.ts --runs 200 --inflight 10 --latency-runs 50
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { readEnv } from '../src/config';
import { PipelineClient } from '../src/client/runs/pipeline-client';
import type { TracingOptions } from '../src/client/tracing';
import { pipeline } from '../src/pipeline';
import { createWorker } from '../src/worker/create-worker';
import { buildWorkflowBundle } from '../src/worker/workflow-bundle';
import { noopSteps } from './noop-steps';
import { intArg, intListArg, reportRows, type SummaryRow } from './summary';
import { percentile, timeInFlight } from './timing';

const RUNS = intArg('runs', 200);
const ROUNDS = intArg('rounds', 2);
const LEVELS = intListArg('inflight', [10]);
const LATENCY_RUNS = intArg('latency-runs', 50);
const BENCH = 'tracing-overhead';

type Side = 'off' | 'on';
const LABELS: Record<Side, string> = {
  off: 'pipeline, tracing off',
  on: 'pipeline, tracing on (OTLP/HTTP export)',
};

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const address = readEnv().temporalAddress ?? 'localhost:7233';
  // The OTLP endpoint: reads every request body, answers 200 (an empty ExportTraceServiceResponse).
  let posts = 0;
  let bytes = 0;
  const collector = createServer((req, res) => {
    req.on('data', (b: Buffer) => (bytes += b.length));
    req.on('end', () => {
      posts++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const port = (collector.address() as AddressInfo).port;
  const tracing: TracingOptions = {
    spanProcessor: new BatchSpanProcessor(
      new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces` }),
    ),
    resource: new Resource({ 'service.name': 'tflow-bench' }),
  };

  const quiet = { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} };
  const [plainBundle, tracedBundle] = await Promise.all([
    buildWorkflowBundle(quiet),
    buildWorkflowBundle(quiet, { traced: true }),
  ]);
  const native = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const queues: Record<Side, string> = { off: `bench-off-${randomUUID()}`, on: `bench-on-${randomUUID()}` };
  const workers = {
    off: await createWorker({
      connection: native,
      taskQueue: queues.off,
      steps: noopSteps,
      workflowBundle: { code: plainBundle.code },
    }),
    on: await createWorker({
      connection: native,
      taskQueue: queues.on,
      steps: noopSteps,
      workflowBundle: { code: tracedBundle.code },
      tracing,
    }),
  };
  const clients = {
    off: new PipelineClient(client, { taskQueue: queues.off }),
    on: new PipelineClient(client, { taskQueue: queues.on, tracing }),
  };
  const p = pipeline('bench-3-noop', { steps: noopSteps }).step('stepA').step('stepB').step('stepC');
  const sides: Side[] = ['off', 'on'];
  const runOnce = async (side: Side, x: number) => {
    const out = await clients[side].run(p, [x], { workflowId: `bench-t${side}-${randomUUID()}` });
    if (out !== x + 3) throw new Error(`${side} returned ${String(out)} for ${x}`);
  };
  /** `n` runs, `inFlight` at a time; wall time in ms. */
  const pool = (side: Side, n: number, inFlight: number) =>
    timeInFlight(n, inFlight, (x) => runOnce(side, x));

  const rows: SummaryRow[] = [];
  const load = loadavg().map((l) => l.toFixed(2));
  const measure = async () => {
    try {
      for (const side of sides) await pool(side, 10, 10); // warm-up, not counted
      for (const level of LEVELS) {
        const elapsed: Record<Side, number> = { off: 0, on: 0 };
        const perRound = Math.max(1, Math.round(RUNS / ROUNDS));
        for (let round = 0; round < ROUNDS; round++) {
          for (const side of round % 2 === 0 ? sides : [...sides].reverse())
            elapsed[side] += await pool(side, perRound, level);
        }
        const throughput = (side: Side) => (perRound * ROUNDS * 1000) / elapsed[side];
        for (const side of sides)
          console.log(`${level} in flight  ${LABELS[side].padEnd(42)} ${throughput(side).toFixed(1)} runs/s`);
        rows.push({
          bench: BENCH,
          metric: `throughput, ${level} in flight`,
          unit: 'runs/s',
          ours: LABELS.on,
          oursValue: throughput('on'),
          baseline: LABELS.off,
          baselineValue: throughput('off'),
          ratio: throughput('on') / throughput('off'),
        });
      }
      const latencies: Record<Side, number[]> = { off: [], on: [] };
      for (let i = 0; i < LATENCY_RUNS; i++) {
        for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
          const start = performance.now();
          await runOnce(side, i);
          latencies[side].push(performance.now() - start);
        }
      }
      for (const q of [50, 99]) {
        const on = percentile(latencies.on, q);
        const off = percentile(latencies.off, q);
        rows.push({
          bench: BENCH,
          metric: `latency p${q}, one run at a time`,
          unit: 'ms',
          ours: LABELS.on,
          oursValue: on,
          baseline: LABELS.off,
          baselineValue: off,
          ratio: on / off,
        });
      }
    } finally {
      workers.off.shutdown();
      workers.on.shutdown();
    }
  };
  await Promise.all([workers.off.run(), workers.on.run(), measure()]);
  await tracing.spanProcessor!.forceFlush();
  console.log(
    `${RUNS} runs per side and level in ${ROUNDS} rounds (alternating order); latency: ${LATENCY_RUNS} runs per side`,
  );
  console.log(`exported: ${posts} OTLP requests, ${(bytes / 1024).toFixed(0)} KiB`);
  console.log(
    `load average at the start: ${load.join(' ')}; at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  reportRows(rows);
  await native.close();
  await connection.close();
  await new Promise((resolve) => collector.close(resolve));
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

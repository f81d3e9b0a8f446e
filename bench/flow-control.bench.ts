/*
 * The cost of flow control (issue 34): how fast events go into a debounce and a batch, and how much later a
 * run's step starts under each control, each against a plain start measured beside it.
 *
 * - Intake: `--events` sends at once from this process into a debounce (one key, a period long enough that
 *   no run starts meanwhile) and into a batch (one key, a size above `--events`), until every event is held;
 *   baseline: the same number of plain `start()`s at once, until every run is started. The median of the
 *   rounds (a side's first round also pays for warming up).
 * - Added latency: `--samples` times, one event (or run) at a time, the time from the call to the step's
 *   start, p50; for a debounce its period is taken off (the wait asked for), for a batch the time is the
 *   last event of a full batch's. Baseline: a plain start. A capped key (`maxConcurrentTotal`, a free slot)
 *   is measured too (its extra is the semaphore's update-with-start), and a plain run that sleeps as long
 *   as the debounce's period first (what a Temporal timer adds on its own, beside the debounce's).
 *
 * Sides in turns (rotating order) over `--rounds` rounds on the server of `npm run bench`. Nothing asserts on
 * time: the ratios are the figures.
 *
 *   npm run bench -- flow-control
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 npx tsx bench/flow-control.bench.ts --events 400 --samples 20 --rounds 2
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { readEnv } from '../src/config';
import { pipeline } from '../src/pipeline';
import { flowControlWorkflowId } from '../src/workflows/flow-control/flow-defs';
import { PipelineClient } from '../src/client/runs/pipeline-client';
import { createWorker } from '../src/worker/create-worker';
import { buildWorkflowBundle } from '../src/worker/workflow-bundle';
import { intArg, reportRows, type SummaryRow } from './summary';
import { percentile } from './timing';

const EVENTS = intArg('events', 400);
const SAMPLES = intArg('samples', 20);
const ROUNDS = intArg('rounds', 2);
const DEBOUNCE_MS = 200;
const BENCH = 'flow-control';

/** When each labelled step started (ms). */
const stepStarted = new Map<string, number>();
const labelOf = (args: unknown[]): string => {
  const [first] = args;
  // A batch's or a debounce-all's run gets one argument, the events' args: the last event labels it.
  if (Array.isArray(first)) return labelOf(first[first.length - 1] as unknown[]);
  return String(first);
};
const steps = {
  async mark(...args: unknown[]): Promise<void> {
    stepStarted.set(labelOf(args), Date.now());
  },
};

async function waitForStep(label: string): Promise<number> {
  const until = Date.now() + 120_000;
  while (!stepStarted.has(label)) {
    if (Date.now() > until) throw new Error(`the step of ${label} never started`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return stepStarted.get(label)!;
}

type Latency = 'plain' | 'sleep' | 'debounce' | 'batch' | 'throttle' | 'dedupe' | 'capped';

async function main(): Promise<void> {
  const env = readEnv();
  const address = env.temporalAddress ?? '127.0.0.1:7233';
  // The worker's run events are info logs: keep them out of the figures.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const native = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: env.namespace });
  const taskQueue = `bench-flow-${randomUUID()}`;
  const worker = await createWorker({
    connection: native,
    namespace: env.namespace,
    taskQueue,
    steps,
    workflowBundle: await buildWorkflowBundle(),
  });
  const running = worker.run();
  const runs = new PipelineClient(client, { taskQueue });
  const id = () => randomUUID().slice(0, 8);
  /** Flow controls that would wait an hour: ended when the bench ends, on a server that may outlive it. */
  const held: string[] = [];
  const plain = pipeline(`bench-plain-${id()}`, { steps }).step('mark');

  const intake: Record<'debounce' | 'batch' | 'plain', number[]> = { debounce: [], batch: [], plain: [] };
  const latency: Record<Latency, number[]> = {
    plain: [],
    sleep: [],
    debounce: [],
    batch: [],
    throttle: [],
    dedupe: [],
    capped: [],
  };
  const timed = async (fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Intake, sides rotating.
      const intakes = {
        plain: () =>
          Promise.all(Array.from({ length: EVENTS }, (_, i) => runs.start(plain, [`i${round}-${i}`]))),
        debounce: () => {
          const p = pipeline(`bench-debounce-${id()}`, {
            steps,
            debounce: { period: '1h', deliver: 'all' },
          }).step('mark');
          held.push(p.name);
          return Promise.all(Array.from({ length: EVENTS }, (_, i) => runs.send(p, [`d${round}-${i}`])));
        },
        batch: () => {
          const p = pipeline(`bench-batch-${id()}`, {
            steps,
            batch: { maxSize: EVENTS + 1, maxWait: '1h' },
          }).step('mark');
          held.push(p.name);
          return Promise.all(Array.from({ length: EVENTS }, (_, i) => runs.send(p, [`b${round}-${i}`])));
        },
      };
      const sides = Object.keys(intakes) as (keyof typeof intakes)[];
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(k + round) % sides.length]!;
        let started: unknown[] = [];
        const ms = await timed(async () => (started = await intakes[side]()));
        intake[side].push((EVENTS * 1000) / ms);
        // The plain side's runs go on after their starts: the next side must not meet them in the worker.
        if (side === 'plain')
          await Promise.all((started as { result(): Promise<unknown> }[]).map((h) => h.result()));
        console.log(`round ${round + 1} intake ${side}: ${EVENTS} in ${ms.toFixed(0)} ms`);
      }

      // Added latency, one at a time.
      const debounce = pipeline(`bench-debounce-l-${id()}`, {
        steps,
        debounce: { period: DEBOUNCE_MS },
      }).step('mark');
      const batch = pipeline(`bench-batch-l-${id()}`, { steps, batch: { maxSize: 2, maxWait: '1h' } }).step(
        'mark',
      );
      const throttle = pipeline(`bench-throttle-${id()}`, {
        steps,
        throttle: { limit: 1000, period: '1s' },
      }).step('mark');
      const dedupe = pipeline(`bench-dedupe-${id()}`, {
        steps,
        dedupe: { key: ([l]) => String(l), window: '1m' },
      }).step('mark');
      const capped = pipeline(`bench-capped-${id()}`, {
        steps,
        concurrencyKey: ([l]) => String(l).slice(-1),
        maxConcurrent: 5,
        maxConcurrentTotal: 50,
      }).step('mark');
      // A plain run that sleeps as long as the debounce's period first: what a Temporal timer adds alone.
      const sleeper = pipeline(`bench-sleep-${id()}`, { steps }).sleep('wait', DEBOUNCE_MS).step('mark');
      const one: Record<Latency, (label: string) => Promise<number>> = {
        sleep: async (l) => (await waitFor(l, () => runs.start(sleeper, [l]))) - DEBOUNCE_MS,
        plain: (l) => waitFor(l, () => runs.start(plain, [l])),
        debounce: async (l) => (await waitFor(l, () => runs.send(debounce, [l]))) - DEBOUNCE_MS,
        batch: async (l) => {
          await runs.send(batch, [`${l}-first`]);
          return waitFor(l, () => runs.send(batch, [l]));
        },
        throttle: (l) => waitFor(l, () => runs.send(throttle, [l])),
        dedupe: (l) => waitFor(l, () => runs.send(dedupe, [l])),
        capped: (l) => waitFor(l, () => runs.start(capped, [l])),
      };
      const kinds = Object.keys(one) as Latency[];
      for (let s = 0; s < SAMPLES; s++) {
        for (let k = 0; k < kinds.length; k++) {
          const kind = kinds[(k + s + round) % kinds.length]!;
          latency[kind].push(await one[kind](`${kind}-${round}-${s}`));
        }
      }
    }
  } finally {
    for (const name of held) {
      await client.workflow
        .getHandle(flowControlWorkflowId(name, ''))
        .terminate('bench over')
        .catch(() => undefined);
    }
    worker.shutdown();
    await running;
    await connection.close();
    await native.close();
  }

  // The median of the rounds: the first round of a side also pays for warming up (a new flow control).
  const mean = (xs: number[]) => percentile(xs, 50);
  const rows: SummaryRow[] = [
    ...(['debounce', 'batch'] as const).map((side) => ({
      bench: BENCH,
      metric: `intake: ${EVENTS} sent at once from one process into a ${side} (one key)`,
      unit: 'per s',
      ours: `events into a ${side}`,
      oursValue: mean(intake[side]),
      baseline: 'plain starts',
      baselineValue: mean(intake.plain),
      ratio: mean(intake[side]) / mean(intake.plain),
    })),
    ...(['sleep', 'debounce', 'batch', 'throttle', 'dedupe', 'capped'] as const).map((kind) => {
      const ours = percentile(latency[kind], 50);
      const base = percentile(latency.plain, 50);
      return {
        bench: BENCH,
        metric: `call to step start, p50 of ${latency[kind].length}${kind === 'debounce' || kind === 'sleep' ? ` (its ${DEBOUNCE_MS} ms wait taken off)` : ''}`,
        unit: 'ms',
        ours:
          kind === 'capped'
            ? 'capped key, a free slot'
            : kind === 'sleep'
              ? `plain run with a ${DEBOUNCE_MS} ms sleep first`
              : kind,
        oursValue: ours,
        baseline: 'plain start',
        baselineValue: base,
        ratio: ours / base,
      };
    }),
  ];
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, ${os.cpus().length} cores`,
  );
  reportRows(rows);
}

/** Calls `send`, then waits for the step labelled `label`: ms from the call to the step's start. */
async function waitFor(label: string, send: () => Promise<unknown>): Promise<number> {
  const t0 = Date.now();
  await send();
  return (await waitForStep(label)) - t0;
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

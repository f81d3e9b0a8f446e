/*
 * Bytes per run: the history one run of the 3-step no-op pipeline writes (regular steps, then local
 * steps), against the hand-written workflows calling the same three activities, split by what the bytes
 * carry: the start's input, the run's result, its user metadata (summary and details the Temporal UI shows), its memo and
 * search attributes, the activities' inputs and results (or the local activities' markers), and the rest
 * (event framing, task events, ids). Counted from the histories the server returns (the Payload and event
 * protos encoded), so the figures do not depend on the machine's load: a run of the same code gives the
 * same bytes. Lower is better; a ratio over 1 is what ours writes more.
 *
 *   npm run bench -- run-bytes
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 npx tsx bench/run-bytes.bench.ts --runs 5
 */
import { randomUUID } from 'node:crypto';
import { PipelineClient } from '../src/client/runs/pipeline-client';
import {
  bytesByEventType,
  bytesByPart,
  HISTORY_PARTS as PARTS,
  type HistoryPart as Part,
} from './history-bytes';
import { noopSides } from './noop-sides';
import { intArg, reportRows, type SummaryRow } from './summary';

const RUNS = intArg('runs', 5);
const BENCH = 'run-bytes';

async function main(): Promise<void> {
  const bench = await noopSides();
  const { client, regular, local } = bench;
  const { pipelineQueue, baselineQueue, pipelineWorker, baselineWorker } = await bench.startWorkers();
  const pipelines = new PipelineClient(client, { taskQueue: pipelineQueue });
  const sides = {
    'pipeline (regular steps)': async (x: number) => (await pipelines.start(regular, [x])).workflowId,
    'hand-written (regular)': async (x: number) => {
      const workflowId = `bench-bytes-${randomUUID()}`;
      await client.workflow.execute('baselineWorkflow', { taskQueue: baselineQueue, workflowId, args: [x] });
      return workflowId;
    },
    'pipeline (local steps)': async (x: number) => (await pipelines.start(local, [x])).workflowId,
    'hand-written (local)': async (x: number) => {
      const workflowId = `bench-bytes-${randomUUID()}`;
      await client.workflow.execute('baselineLocalWorkflow', {
        taskQueue: baselineQueue,
        workflowId,
        args: [x],
      });
      return workflowId;
    },
  };
  type Side = keyof typeof sides;
  const perRun: Partial<Record<Side, { total: number; events: number; parts: Record<Part, number> }>> = {};
  const typesOf: Partial<Record<Side, Map<string, number>>> = {};
  await Promise.all([
    pipelineWorker.runUntil(async () => {
      await baselineWorker.runUntil(async () => {
        for (const side of Object.keys(sides) as Side[]) {
          const sums = {
            total: 0,
            events: 0,
            parts: Object.fromEntries(PARTS.map((p) => [p, 0])) as Record<Part, number>,
          };
          for (let i = 0; i < RUNS; i++) {
            const workflowId = await sides[side](i);
            const handle = client.workflow.getHandle(workflowId);
            await handle.result();
            const events = (await handle.fetchHistory()).events ?? [];
            const parts = bytesByPart(events);
            if (i === 0) typesOf[side] = bytesByEventType(events);
            sums.events += events.length;
            sums.total += PARTS.reduce((n, p) => n + parts[p], 0);
            for (const p of PARTS) sums.parts[p] += parts[p];
          }
          perRun[side] = {
            total: sums.total / RUNS,
            events: sums.events / RUNS,
            parts: Object.fromEntries(PARTS.map((p) => [p, sums.parts[p] / RUNS])) as Record<Part, number>,
          };
        }
      });
    }),
  ]);
  await bench.close();

  console.log(`\nbytes per run (mean of ${RUNS}), by what they carry:`);
  console.log(['side'.padEnd(26), 'events', 'total', ...PARTS].join('  '));
  for (const [side, r] of Object.entries(perRun)) {
    console.log(
      [
        side.padEnd(26),
        String(r.events).padStart(6),
        String(Math.round(r.total)).padStart(5),
        ...PARTS.map((p) => String(Math.round(r.parts[p])).padStart(p.length)),
      ].join('  '),
    );
  }
  // Where ours writes more, event type by event type (one run of each side, whole events).
  for (const [ours, base] of [
    ['pipeline (regular steps)', 'hand-written (regular)'],
    ['pipeline (local steps)', 'hand-written (local)'],
  ] as [Side, Side][]) {
    const o = typesOf[ours]!;
    const b = typesOf[base]!;
    const lines = [...new Set([...o.keys(), ...b.keys()])]
      .map((type) => [type, (o.get(type) ?? 0) - (b.get(type) ?? 0)] as const)
      .filter(([, d]) => d !== 0)
      .sort((x, y) => y[1] - x[1]);
    console.log(`\n${ours} against ${base}, bytes more per event type:`);
    for (const [type, d] of lines) console.log(`  ${type.padEnd(40)} ${d > 0 ? '+' : ''}${d}`);
  }
  const rows: SummaryRow[] = [];
  const pairs: [Side, Side][] = [
    ['pipeline (regular steps)', 'hand-written (regular)'],
    ['pipeline (local steps)', 'hand-written (local)'],
  ];
  for (const [ours, base] of pairs) {
    const o = perRun[ours]!;
    const b = perRun[base]!;
    rows.push({
      bench: BENCH,
      metric: 'history bytes per run',
      unit: 'B',
      ours,
      oursValue: Math.round(o.total),
      baseline: base,
      baselineValue: Math.round(b.total),
      ratio: o.total / b.total,
    });
    for (const part of PARTS) {
      if (o.parts[part] === b.parts[part]) continue;
      rows.push({
        bench: BENCH,
        metric: `history bytes per run: ${part}`,
        unit: 'B',
        ours,
        oursValue: Math.round(o.parts[part]),
        baseline: base,
        baselineValue: Math.round(b.parts[part]),
        ...(b.parts[part] > 0 ? { ratio: o.parts[part] / b.parts[part] } : {}),
      });
    }
  }
  reportRows(rows);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

/*
 * Worker memory and start-up: a worker process with the example steps (examples/steps.ts), started from
 * the build (dist/) with the workflow bundle `npm run build` ships, against the same process bundling
 * the workflows with webpack when it starts (what createWorker did before). Per side and round: time from
 * process start to polling, RSS once idle, and peak RSS while it serves a burst of runs of the example
 * health-check steps started all at once (without the example's 1-minute run timeout, which a burst on a
 * loaded machine can exceed). Builds dist/ first when its bundle is missing. Both sides run compiled
 * JavaScript with plain `node` (the child is compiled with esbuild into .tflow/bench/, the package itself
 * is dist/), as a user runs a worker in production: tsx would add some 45 MB and its compile time to each.
 *
 *   npm run bench -- worker-footprint --rounds 2 --burst 200
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { readEnv } from '../src/config';
import { PipelineClient } from '../src/client/runs/pipeline-client';
import { pipeline } from '../src/pipeline';
import { steps } from '../examples/steps';
import { compileForNode } from './compile-for-node';
import { intArg, reportRows, type SummaryRow } from './summary';

const ROUNDS = intArg('rounds', 1);
const BURST = intArg('burst', 200);
const IDLE_MS = intArg('idle-ms', 3000);
const SIDES = ['bundle-at-start', 'prebuilt'] as const;
type Side = (typeof SIDES)[number];
interface Figures {
  startupMs: number;
  createWorkerMs: number;
  idleRssMb: number;
  peakRssMb: number;
  burstMs: number;
}

const root = path.resolve(__dirname, '..');
const MB = 1024 * 1024;
const healthCheck = pipeline('footprint-health-check', { steps }).step('sampleHost').step('judgeHealth');

function nextMessage<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: { type: string }) => {
      if (msg.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(msg as T);
    };
    const onExit = (code: number | null) =>
      reject(new Error(`worker process exited with ${code} before "${type}"`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

async function measure(side: Side, childJs: string, address: string, client: Client): Promise<Figures> {
  const taskQueue = `bench-footprint-${randomUUID()}`;
  const child = fork(childJs, [side, address, taskQueue], {
    // Not this process's `--import tsx`: the worker runs as compiled JavaScript.
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const ready = await nextMessage<{ startupMs: number; createWorkerMs: number }>(child, 'ready');
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const idle = nextMessage<{ rssBytes: number }>(child, 'idle');
    child.send({ type: 'idle' });
    const { rssBytes: idleRss } = await idle;
    const pipelines = new PipelineClient(client, { taskQueue });
    const start = performance.now();
    await Promise.all(
      Array.from({ length: BURST }, () =>
        pipelines.run(healthCheck, [], { workflowId: `bench-footprint-${randomUUID()}` }),
      ),
    );
    const burstMs = performance.now() - start;
    const peak = nextMessage<{ rssBytes: number }>(child, 'peak');
    child.send({ type: 'peak' });
    const { rssBytes: peakRss } = await peak;
    await exited;
    return { ...ready, idleRssMb: idleRss / MB, peakRssMb: peakRss / MB, burstMs };
  } finally {
    if (child.exitCode === null) child.kill();
  }
}

async function main(): Promise<void> {
  if (!existsSync(path.join(root, 'dist/workflow-bundle.js'))) {
    console.log('dist/workflow-bundle.js is missing: running npm run build first');
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  }
  const childJs = await compileForNode('worker-footprint-child');
  const address = readEnv().temporalAddress ?? 'localhost:7233';
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const results: Record<Side, Figures[]> = { 'bundle-at-start': [], prebuilt: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate the order so that drift in the machine's load hits both sides alike.
      for (const side of round % 2 === 0 ? SIDES : [...SIDES].reverse()) {
        results[side].push(await measure(side, childJs, address, client));
      }
    }
  } finally {
    await connection.close();
  }
  const median = (side: Side, key: keyof Figures) => {
    const values = results[side].map((f) => f[key]).sort((a, b) => a - b);
    return values[Math.floor(values.length / 2)]!;
  };
  const metrics: [keyof Figures, string, string][] = [
    ['startupMs', 'start-up: process start to polling', 'ms'],
    ['createWorkerMs', 'start-up: createWorker alone', 'ms'],
    ['idleRssMb', 'RSS idle (example steps)', 'MB'],
    ['peakRssMb', `RSS peak during a ${BURST}-run burst`, 'MB'],
    ['burstMs', `${BURST}-run burst wall time`, 'ms'],
  ];
  console.log(
    `${ROUNDS} round(s) per side, medians; worker processes run compiled, with plain node (both sides alike)`,
  );
  const rows: SummaryRow[] = metrics.map(([key, metric, unit]) => {
    const ours = median('prebuilt', key);
    const baseline = median('bundle-at-start', key);
    return {
      bench: 'worker-footprint',
      metric,
      unit,
      ours: 'prebuilt bundle',
      oursValue: ours,
      baseline: 'bundle at start',
      baselineValue: baseline,
      ratio: ours / baseline,
    };
  });
  reportRows(rows);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

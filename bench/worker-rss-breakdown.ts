/*
 * Where a worker process's resident memory goes (docs/performance.md, "Worker memory"): one compiled
 * process per stage (bench/worker-rss-stage.ts), each going one step further than the one before, from a
 * bare `node` to createWorker() with a watchdog worker beside it, and the createWorker() process again
 * under `node --import tsx`. It prints each stage's median VmRSS `--idle-ms` after its workers poll, and
 * what the stage adds. Not a ratio bench (no baseline), so `npm run bench` does not run it:
 *
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 npx tsx bench/worker-rss-breakdown.ts --rounds 3
 */
import { execFileSync, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { readEnv } from '../src/config';
import { compileForNode } from './compile-for-node';
import { intArg } from './summary';
import { STAGES, type Stage, type StageReport } from './worker-rss-stage';

const ROUNDS = intArg('rounds', 3);
const IDLE_MS = intArg('idle-ms', 3000);
const root = path.resolve(__dirname, '..');

function measure(stageJs: string, stage: Stage, address: string, execArgv: string[]): Promise<StageReport> {
  const args = [stage, address, `bench-rss-${randomUUID()}`, String(IDLE_MS)];
  const child = fork(stageJs, args, {
    execArgv,
    // Under tsx too, `temporal-flow` is the build (dist/), as for a user whose package is installed:
    // tsconfig.build.json has no `paths` to map it to src/ (which would bundle the workflows at start).
    env: { ...process.env, TSX_TSCONFIG_PATH: path.join(root, 'tsconfig.build.json') },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (report: StageReport) => resolve(report));
    child.once('exit', (code) => reject(new Error(`stage ${stage} exited with ${code} before reporting`)));
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  if (!existsSync(path.join(root, 'dist/workflow-bundle.js'))) {
    console.log('dist/workflow-bundle.js is missing: running npm run build first');
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  }
  const stageJs = await compileForNode('worker-rss-stage');
  const address = readEnv().temporalAddress ?? 'localhost:7233';
  const runs: [string, Stage, string[]][] = [
    ...STAGES.map((stage): [string, Stage, string[]] => [stage, stage, []]),
    ['create-worker under tsx', 'create-worker', ['--import', 'tsx']],
  ];
  const reports = new Map<string, StageReport[]>(runs.map(([label]) => [label, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, stage, execArgv] of runs) {
      reports.get(label)!.push(await measure(stageJs, stage, address, execArgv));
    }
  }
  console.log(`VmRSS ${IDLE_MS} ms after polling, median of ${ROUNDS} process(es) per stage`);
  console.log(
    `${'stage'.padEnd(26)} ${'RSS MB'.padStart(7)} ${'adds'.padStart(6)} ${'ready ms'.padStart(9)}`,
  );
  let previous: number | undefined;
  for (const [label] of runs) {
    const rss = median(reports.get(label)!.map((r) => r.rssMb));
    const ready = reports.get(label)!.flatMap((r) => (r.readyMs === undefined ? [] : [r.readyMs]));
    const adds = label.endsWith('tsx')
      ? rss - median(reports.get('create-worker')!.map((r) => r.rssMb))
      : rss - (previous ?? rss);
    console.log(
      `${label.padEnd(26)} ${rss.toFixed(0).padStart(7)} ${adds.toFixed(0).padStart(6)} ${(ready.length ? median(ready).toFixed(0) : '').padStart(9)}`,
    );
    if (!label.endsWith('tsx')) previous = rss;
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

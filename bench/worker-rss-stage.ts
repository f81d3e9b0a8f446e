/*
 * One process of bench/worker-rss-breakdown.ts, started with fork() and run compiled (plain node): it
 * goes as far as its stage (each stage includes the ones before it), idles `idleMs`, and reports its
 * resident memory (VmRSS) over IPC. The SDK (and the example steps, which import temporal-flow) are
 * imported only from the `sdk` stage on, so that the `node` stage is a bare process.
 */
import { readFileSync } from 'node:fs';

export const STAGES = [
  'node',
  'sdk',
  'connection',
  'activity-worker',
  'workflow-worker',
  'create-worker',
  'create-worker+watchdog',
] as const;
export type Stage = (typeof STAGES)[number];
export interface StageReport {
  rssMb: number;
  /** ms from process start to the workers polling (undefined before a worker exists). */
  readyMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const vmRssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

async function workersFor(stage: Stage, address: string, taskQueue: string) {
  const { DefaultLogger, NativeConnection, Runtime, Worker } = await import('@temporalio/worker');
  const { steps } = await import('../examples/steps.js');
  if (stage === 'sdk') return { workers: [], close: async () => undefined };
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({ address });
  const close = () => connection.close();
  if (stage === 'connection') return { workers: [], close };
  if (stage === 'activity-worker') {
    return { workers: [await Worker.create({ connection, taskQueue, activities: steps })], close };
  }
  const { createWatchdogWorker, createWorker, PREBUILT_WORKFLOW_BUNDLE_PATH } =
    await import('temporal-flow/worker');
  if (stage === 'workflow-worker') {
    const workflowBundle = { codePath: PREBUILT_WORKFLOW_BUNDLE_PATH };
    return {
      workers: [await Worker.create({ connection, taskQueue, activities: steps, workflowBundle })],
      close,
    };
  }
  const workers = [await createWorker({ connection, taskQueue, steps })];
  if (stage === 'create-worker+watchdog') {
    workers.push(await createWatchdogWorker({ connection, taskQueue: `${taskQueue}-watchdog` }));
  }
  return { workers, close };
}

async function main(): Promise<void> {
  const [stage, address, taskQueue, idleMs] = process.argv.slice(2) as [Stage, string, string, string];
  process.once('disconnect', () => process.exit(1));
  const report: StageReport = { rssMb: 0 };
  if (stage === 'node') {
    await sleep(Number(idleMs));
    report.rssMb = vmRssMb();
    process.send!(report);
    return;
  }
  const { workers, close } = await workersFor(stage, address, taskQueue);
  const running = workers.map((w) => w.run());
  while (workers.some((w) => w.getState() !== 'RUNNING')) await sleep(1);
  if (workers.length > 0) report.readyMs = performance.now();
  await sleep(Number(idleMs));
  report.rssMb = vmRssMb();
  process.send!(report);
  workers.forEach((w) => w.shutdown());
  await Promise.all(running);
  await close();
}

if (require.main === module) {
  void main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

/*
 * A worker in its own process, so that the chaos test can SIGKILL it mid-step:
 *
 *   node --import tsx test/chaos/worker-process.ts <address> <namespace> <taskQueue> <bundlePath> <markerDir>
 *
 * Every step appends a line to `<markerDir>/calls.log` (one file shared by successive workers), so the
 * test sees which steps ran, and how often, across processes. Prints `ready` once polling.
 */
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createWorker } from '../../src/worker/create-worker';

function readArgs(argv: string[]) {
  const [address, namespace, taskQueue, bundlePath, markerDir] = argv;
  if (!address || !namespace || !taskQueue || !bundlePath || !markerDir) {
    throw new Error('usage: worker-process.ts <address> <namespace> <taskQueue> <bundlePath> <markerDir>');
  }
  return { address, namespace, taskQueue, bundlePath, markerDir };
}
const { address, namespace, taskQueue, bundlePath, markerDir } = readArgs(process.argv.slice(2));
const log = (line: string) => appendFileSync(path.join(markerDir, 'calls.log'), `${line}\n`);

const steps = {
  async first(x: number) {
    log(`first:${process.pid}`);
    return x + 1;
  },
  /** Blocks, heartbeating, until the test creates `<markerDir>/release`. */
  async slow(x: number) {
    const { attempt } = Context.current().info;
    log(`slow#${attempt}:${process.pid}`);
    writeFileSync(path.join(markerDir, `slow-started-${attempt}`), '');
    while (!existsSync(path.join(markerDir, 'release'))) {
      Context.current().heartbeat();
      await new Promise((r) => setTimeout(r, 100));
    }
    return x * 10;
  },
  async last(x: number) {
    log(`last:${process.pid}`);
    return `done ${x}`;
  },
};

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({ address });
  const worker = await createWorker({
    connection,
    namespace,
    taskQueue,
    steps,
    workflowBundle: { codePath: bundlePath },
    // A killed worker's sticky queue is abandoned: fall back to the shared queue after 1 s, not 10 s.
    workerOptions: { stickyQueueScheduleToStartTimeout: '1s' },
  });
  const running = worker.run();
  console.log('ready');
  await running;
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

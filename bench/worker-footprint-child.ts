/*
 * One worker process of bench/worker-footprint.bench.ts, started with fork(): serves the example steps
 * on its task queue with createWorker from the build (dist/), either with the bundle `npm run build`
 * ships (`prebuilt`) or bundling the workflows when it starts (`bundle-at-start`, what createWorker did
 * before the prebuilt bundle). The bench compiles this file to JavaScript and runs it with plain `node`,
 * as a user runs a compiled worker: `temporal-flow/worker` and the steps' `temporal-flow` resolve to
 * dist/ (the package's own exports), with no tsx loaded. It reports over IPC:
 * - `ready`: ms from process start to the worker polling (run() called, state RUNNING), and createWorker's share;
 * - `idle`: its RSS after it has polled idle for a while;
 * - `peak`: the highest RSS sampled (every 20 ms) since `idle`, i.e. during the parent's burst.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { buildWorkflowBundle, createWorker } from 'temporal-flow/worker';
import { steps } from '../examples/steps';

type Mode = 'prebuilt' | 'bundle-at-start';
const noop = () => undefined;
const quiet = { trace: noop, debug: noop, info: noop, log: noop, warn: console.warn, error: console.error };
type Message = { type: 'idle' } | { type: 'peak' };

async function main(): Promise<void> {
  const [mode, address, taskQueue] = process.argv.slice(2) as [Mode, string, string];
  // The parent went away (killed, crashed): do not linger as an orphan.
  process.once('disconnect', () => process.exit(1));
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({ address });
  const created = performance.now();
  const worker = await createWorker({
    connection,
    taskQueue,
    steps,
    ...(mode === 'bundle-at-start'
      ? {
          workflowBundle: await buildWorkflowBundle(quiet),
        }
      : {}),
  });
  const running = worker.run();
  while (worker.getState() !== 'RUNNING') await new Promise((r) => setTimeout(r, 1));
  // performance.now() counts from the process's start (its time origin).
  process.send!({ type: 'ready', startupMs: performance.now(), createWorkerMs: performance.now() - created });

  let peak = 0;
  let sampler: NodeJS.Timeout | undefined;
  process.on('message', (msg: Message) => {
    if (msg.type === 'idle') {
      const rss = process.memoryUsage.rss();
      peak = rss;
      sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
      process.send!({ type: 'idle', rssBytes: rss });
    } else {
      clearInterval(sampler);
      process.send!({ type: 'peak', rssBytes: Math.max(peak, process.memoryUsage.rss()) });
      worker.shutdown();
    }
  });
  await running;
  await connection.close();
  process.removeAllListeners('disconnect');
  process.disconnect();
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

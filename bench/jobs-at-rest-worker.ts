/*
 * The alert worker of the benches that create jobs with alerts (jobs-at-rest, scheduler-ops), in a process
 * of its own so that its RSS and CPU are its own. bench/watchdog-process.ts compiles it for plain node
 * (compile-for-node.ts), so that it runs as a user's compiled alert worker does: `temporal-flow/worker`
 * from dist/ with the prebuilt workflow bundle, no tsx and no webpack in the process (both would add
 * 100 MB and more to its RSS). `node .tflow/bench/jobs-at-rest-worker.js <address> <task queue>`: prints
 * `ready` once polling, and runs until its stdin closes (the bench ended or died).
 */
import { createWatchdogWorker } from 'temporal-flow/worker';
import { runWorkerProcess } from '../test/helpers/worker-process-main';

const [address, taskQueue] = process.argv.slice(2) as [string, string];

// Every 5 s, V8's heap beside the process's RSS (what the allocators hold is the difference): `heap <used
// MB> <total MB> <external MB>`, read by bench/watchdog-process.ts.
setInterval(() => {
  const m = process.memoryUsage();
  const mb = (n: number) => (n / 1048576).toFixed(1);
  console.log(`heap ${mb(m.heapUsed)} ${mb(m.heapTotal)} ${mb(m.external)}`);
}, 5_000).unref();

runWorkerProcess(
  address,
  async (connection) => {
    const worker = await createWatchdogWorker({ connection, taskQueue });
    process.stdin.on('end', () => worker.shutdown());
    process.stdin.resume();
    return worker;
  },
  async (worker) => {
    while (worker.getState() !== 'RUNNING') await new Promise((r) => setTimeout(r, 50));
  },
);

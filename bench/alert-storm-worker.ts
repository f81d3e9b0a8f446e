/*
 * The alert worker of bench/alert-storm.bench.ts, compiled for plain node against dist/ (see
 * watchdog-process.ts): `node .tflow/bench/alert-storm-worker.js <address> <task queue>`. Prints `ready`
 * once polling, then one line per due check of a job (`check {...}`), per failed read (`failed {...}`) and
 * per delivery attempt (`delivery {...}`), as JSON, for the bench to count; runs until its stdin closes.
 */
import { createWatchdogWorker } from 'temporal-flow/worker';
import { runWorkerProcess } from '../test/helpers/worker-process-main';

const [address, taskQueue] = process.argv.slice(2) as [string, string];
const line = (kind: string, fields: object) => process.stdout.write(`${kind} ${JSON.stringify(fields)}\n`);

runWorkerProcess(
  address,
  async (connection) => {
    const worker = await createWatchdogWorker({
      connection,
      taskQueue,
      onAlertCheck: (c) =>
        line('check', { job: c.jobId, due: c.due, dueAt: c.dueAt.getTime(), at: c.checkedAt.getTime() }),
      onAlertEvaluation: (e) => {
        if (e.outcome === 'failed') line('failed', { job: e.jobId, error: e.error });
      },
      onAlertDelivery: (d) => line('delivery', { job: d.jobId, kind: d.kind, outcome: d.outcome }),
    });
    process.stdin.on('end', () => worker.shutdown());
    process.stdin.resume();
    return worker;
  },
  async (worker) => {
    while (worker.getState() !== 'RUNNING') await new Promise((r) => setTimeout(r, 50));
  },
);

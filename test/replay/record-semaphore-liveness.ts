/*
 * Records a concurrency key's semaphore and a queued run behind the liveness patches
 * (SEMAPHORE_LIVENESS_PATCH, SLOT_REASK_PATCH in src/workflows/semaphore/semaphore-defs.ts); takes about 70 s:
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-semaphore-liveness.ts
 *
 * With maxConcurrent 1: a holder runs a 65 s step; a run asks and is queued (the semaphore, full, checks its
 * holder first), then a third run queues and is terminated while in line.
 * - concurrency-key-reasked.json: the queued run, which got no grant within a minute, asked again (still
 *   queued, it kept its place), then got `slotGranted` when the holder released.
 * - concurrency-semaphore-checked.json: the semaphore: a check when the first waiter asked, the check due a
 *   minute later (whatever came in between) that dropped the terminated waiter, the re-ask, the grant.
 *
 * With an argument, the files are named `<name>-<argument>.json`: behind SEMAPHORE_LOCAL_CHECK_PATCH (the
 * check as a local activity) the same runs were recorded with `local-check`:
 * concurrency-key-reasked-local-check.json and concurrency-semaphore-checked-local-check.json; behind
 * SEMAPHORE_CHECK_ACTIVITY_PATCH (the check an activity on the semaphore's own queue again) with
 * `activity-check`: concurrency-key-reasked-activity-check.json and
 * concurrency-semaphore-checked-activity-check.json.
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { pipeline } from '../../src/pipeline';
import { concurrencySemaphoreId, waitingQuery } from '../../src/workflows/semaphore/semaphore-defs';
import { waitFor } from '../helpers/wait-for';
import { writeHistoryFile } from './history-file';
import { runScript, withRecordingWorker } from './recording-env';

const started = new Set<string>();
const steps = {
  async hold(_key: string, label: string, ms: number) {
    started.add(label);
    await new Promise((r) => setTimeout(r, ms));
    return label;
  },
};

async function main(): Promise<void> {
  const suffix = process.argv[2] ? `-${process.argv[2]}` : '';
  const key = `key-${Date.now()}`;
  const oneAtATime = pipeline('liveness-recorded', {
    steps,
    concurrencyKey: ([k]) => String(k),
    maxConcurrent: 1,
  }).step('hold');
  await withRecordingWorker(steps, async ({ client, taskQueue }) => {
    const pipelines = new PipelineClient(client, { taskQueue, steps });
    const semaphore = client.workflow.getHandle(concurrencySemaphoreId('liveness-recorded', key));
    const inLine = async (workflowId: string) =>
      waitFor(`${workflowId} in line`, async () =>
        (await semaphore.query(waitingQuery)).some((w) => w.workflowId === workflowId) ? true : undefined,
      );
    const holder = await pipelines.start(oneAtATime, [key, 'holder', 65_000], {
      workflowId: `replay-liveness-holder-${Date.now()}`,
    });
    await waitFor('the holder in its step', async () => (started.has('holder') ? true : undefined));
    const queued = await pipelines.start(oneAtATime, [key, 'queued', 100], {
      workflowId: `replay-liveness-queued-${Date.now()}`,
    });
    await inLine(queued.workflowId);
    const doomed = await pipelines.start(oneAtATime, [key, 'doomed', 100], {
      workflowId: `replay-liveness-doomed-${Date.now()}`,
    });
    await inLine(doomed.workflowId);
    await doomed.terminate('recorded: a waiter that dies in line');
    await Promise.all([holder.result(), queued.result()]);
    const dir = path.join(__dirname, 'histories');
    for (const [name, history] of [
      ['concurrency-key-reasked', await queued.fetchHistory()],
      ['concurrency-semaphore-checked', await semaphore.fetchHistory()],
    ] as const) {
      const file = path.join(dir, `${name}${suffix}.json`);
      await writeHistoryFile(file, history);
      console.log(
        `recorded ${name}: ${history.events?.length} events -> ${path.relative(process.cwd(), file)}`,
      );
    }
    await semaphore.terminate('recorded');
  });
}

if (require.main === module) runScript(main);

/*
 * Records a run whose steps are served on other task queues (`remote`, `taskQueue`, `compensateTaskQueue`,
 * docs/python-steps.md): the activity commands name those queues.
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record-remote.ts
 *
 * - remote-steps.json: `fetch` (TypeScript, compensated on the remote queue by `unfetch`), `resize` on the
 *   remote queue (compensated by the TypeScript `unresize`), then `publish` on the remote queue, which
 *   fails for good: the saga undoes both, each on its own queue. An activity-only worker of this script
 *   stands for the worker in another language (the history records only the queue and activity names).
 *
 * Same rule as record.ts: re-record only on purpose; add new files rather than overwrite old ones.
 */
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { pipeline } from '../../src/pipeline';
import { writeHistoryFile } from './history-file';
import { runScript, withRecordingWorker } from './recording-env';

const steps = {
  async fetch(url: string) {
    return { url };
  },
  async unresize() {},
};

const remoteSteps = {
  async resize(image: { url: string }) {
    return { ...image, thumbnail: `${image.url}?w=200` };
  },
  async publish() {
    throw ApplicationFailure.create({ type: 'CdnUnavailable', message: 'cdn down', nonRetryable: true });
  },
  async unfetch() {},
};

async function main(): Promise<void> {
  await withRecordingWorker(steps, async ({ client, taskQueue, nativeConnection }) => {
    const remoteQueue = `${taskQueue}-remote`;
    const remote = await Worker.create({
      connection: nativeConnection,
      taskQueue: remoteQueue,
      activities: remoteSteps,
    });
    await remote.runUntil(async () => {
      const pipelines = new PipelineClient(client, { taskQueue, steps });
      const p = pipeline('remote-steps', {
        steps,
        remote: { resize: remoteQueue, publish: remoteQueue, unfetch: remoteQueue },
      })
        .step('fetch', { compensate: 'unfetch' })
        .step('resize', { compensate: 'unresize' })
        .step('publish');
      const handle = await pipelines.start(p, ['https://example.com/a.png'], {
        workflowId: 'replay-remote-steps',
      });
      await handle.result().catch(() => undefined);
      const history = await handle.fetchHistory();
      const file = path.join(__dirname, 'histories', 'remote-steps.json');
      await writeHistoryFile(file, history);
      console.log(
        `recorded remote-steps: ${history.events?.length} events -> ${path.relative(process.cwd(), file)}`,
      );
    });
  });
}

if (require.main === module) runScript(main);

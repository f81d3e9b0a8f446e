/*
 * Regenerates the recorded histories that `pipeline-replay.test.ts` replays:
 *
 *   TEMPORAL_CLI=/path/to/temporal npx tsx test/replay/record.ts
 *
 * It starts an in-memory dev server (or uses TEMPORAL_ADDRESS), runs one pipeline per scenario against
 * the current interpreter and writes each history to `test/replay/histories/<scenario>.json`.
 *
 * Only re-record on purpose: the point of these files is that they were made by an *older* interpreter.
 * When the interpreter changes what it does, keep the old files (the change must replay them, with
 * `patched()`) and add new ones next to them, e.g. `saga-v2.json`.
 */
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { pipeline, type PipelineLike } from '../../src/pipeline';
import { writeHistoryFile } from './history-file';
import { runScript, withRecordingWorker } from './recording-env';

export const steps = {
  async add(x: number) {
    return x + 1;
  },
  async double(x: number) {
    return x * 2;
  },
  async flaky(x: number) {
    if (Context.current().info.attempt < 3) throw new Error('transient');
    return x;
  },
  async boom() {
    throw ApplicationFailure.create({ type: 'Boom', message: 'boom', nonRetryable: true });
  },
  async undo(..._args: unknown[]) {
    return undefined;
  },
  async undoBroken(..._args: unknown[]) {
    throw new Error('cannot undo');
  },
  async notify() {
    return undefined;
  },
  async split(n: number) {
    return Array.from({ length: n }, (_, i) => i);
  },
};

/** The scenarios: name -> pipeline and args. Each must keep covering what its name says. */
export const scenarios: Record<string, { p: PipelineLike; args: unknown[] }> = {
  success: {
    p: pipeline('success', { steps }).step('add').step('double').step('add', { id: 'add2' }),
    args: [1],
  },
  retry: {
    p: pipeline('retry', { steps }).step('flaky', { retry: { maximumAttempts: 5, initialInterval: 100 } }),
    args: [7],
  },
  saga: {
    p: pipeline('saga', { steps })
      .step('add', { compensate: 'undo' })
      .step('double', {
        compensate: 'undoBroken',
        compensateRetry: { maximumAttempts: 2, initialInterval: 100 },
      })
      .step('boom')
      .onFailure('notify'),
    args: [1],
  },
  parallel: {
    p: pipeline('parallel', { steps })
      .step('split')
      .map('double', { id: 'each', concurrency: 2, compensate: 'undo' })
      .parallel([['add', 'double'], { step: 'notify' }], { id: 'fan' }),
    args: [4],
  },
};

async function main(): Promise<void> {
  await withRecordingWorker(steps, async ({ client, taskQueue }) => {
    const pipelines = new PipelineClient(client, { taskQueue });
    for (const [name, { p, args }] of Object.entries(scenarios)) {
      const handle = await pipelines.start(p, args, { workflowId: `replay-${name}` });
      await handle.result().catch(() => undefined); // the saga scenario fails on purpose
      const history = await handle.fetchHistory();
      const file = path.join(__dirname, 'histories', `${name}.json`);
      await writeHistoryFile(file, history);
      console.log(
        `recorded ${name}: ${history.events?.length} events -> ${path.relative(process.cwd(), file)}`,
      );
    }
  });
}

if (require.main === module) runScript(main);

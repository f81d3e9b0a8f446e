import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { pipeline } from '../../src/pipeline';
import { connectTest, type TestContext } from '../helpers/temporal';
import { WorkerProcesses } from '../helpers/worker-processes';

/*
 * Two worker processes on one task queue share the work of one pipeline run, and every item runs exactly
 * once. Each worker runs at most two activities at a time, so a map with eight in flight needs both.
 */

let t: TestContext;
let dir: string;
const workers = new WorkerProcesses('parallel-worker-process.ts');

beforeAll(async () => {
  t = await connectTest('parallel-workers');
  dir = await mkdtemp(path.join(os.tmpdir(), 'tflow-workers-'));
});
afterAll(async () => {
  await workers.stopAll();
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('several workers on one task queue', () => {
  it('share the steps of a run, each item running once', async () => {
    const logFile = path.join(dir, 'work.log');
    const [a, b] = await Promise.all([workers.start(t, logFile), workers.start(t, logFile)]);
    const client = new PipelineClient(t.client, { taskQueue: t.taskQueue });
    const fanOut = pipeline('fan-out', { steps: ['items', 'work'] })
      .step('items')
      .map('work', { concurrency: 8 });

    const output = await client.run(fanOut, [16]);

    expect(output).toEqual(Array.from({ length: 16 }, (_, i) => i * 10));
    const lines = (await readFile(logFile, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => l.split(' ').map(Number));
    expect(lines.map(([, item]) => item).sort((x, y) => x! - y!)).toEqual(
      Array.from({ length: 16 }, (_, i) => i),
    );
    expect(new Set(lines.map(([pid]) => pid))).toEqual(new Set([a.pid, b.pid]));
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PipelineClient } from '../../src/client/pipeline-client';
import { pipeline } from '../../src/pipeline';
import { connectTest, type TestContext } from '../helpers/temporal';

/*
 * Two worker processes on one task queue share the work of one pipeline run, and every item runs exactly
 * once. Each worker runs at most two activities at a time, so a map with eight in flight needs both.
 */

let t: TestContext;
let dir: string;
const children: ChildProcess[] = [];

function startWorkerProcess(logFile: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(__dirname, '../fixtures/parallel-worker-process.ts'),
      inject('temporalAddress'),
      t.namespace,
      t.taskQueue,
      inject('workflowBundlePath'),
      logFile,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (b: Buffer) => {
      if (b.toString().includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker process exited with ${code} before it was ready`)));
  });
}

beforeAll(async () => {
  t = await connectTest('parallel-workers');
  dir = await mkdtemp(path.join(os.tmpdir(), 'tflow-workers-'));
});
afterAll(async () => {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) =>
          c.exitCode !== null ? resolve() : (c.once('exit', () => resolve()), c.kill('SIGINT')),
        ),
    ),
  );
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('several workers on one task queue', () => {
  it('share the steps of a run, each item running once', async () => {
    const logFile = path.join(dir, 'work.log');
    const [a, b] = await Promise.all([startWorkerProcess(logFile), startWorkerProcess(logFile)]);
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

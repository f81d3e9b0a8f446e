import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

let t: TestContext;
let markerDir: string;
const children: ChildProcess[] = [];

/** Starts a worker process and resolves once it polls the test's task queue. */
async function startWorkerProcess(): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(__dirname, 'worker-process.ts'),
      inject('temporalAddress'),
      t.namespace,
      t.taskQueue,
      inject('workflowBundlePath'),
      markerDir,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker process exited early with ${code}`)));
  });
  return child;
}

function calls(): string[] {
  const file = path.join(markerDir, 'calls.log');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
}

beforeAll(async () => {
  t = await connectTest('chaos');
  markerDir = mkdtempSync(path.join(tmpdir(), 'tflow-chaos-'));
});
afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await t?.close();
  rmSync(markerDir, { recursive: true, force: true });
});

describe('worker killed mid-step', () => {
  it('finishes the run on another worker without re-running completed steps', async () => {
    const first = await startWorkerProcess();
    const p = pipeline('chaos', { steps: ['first', 'slow', 'last'] })
      .step('first')
      .step('slow', { heartbeat: '1s', retry: { initialInterval: 100 } })
      .step('last');
    const handle = await new PipelineClient(t.client, { taskQueue: t.taskQueue }).start(p, [1], {
      workflowId: t.uid('chaos'),
    });
    await waitFor('the slow step to start', async () =>
      existsSync(path.join(markerDir, 'slow-started-1')) ? true : undefined,
    );

    const exited = new Promise((r) => first.once('exit', (_code, signal) => r(signal)));
    first.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    writeFileSync(path.join(markerDir, 'release'), '');
    const second = await startWorkerProcess();

    const result = await handle.result();
    expect(result.output).toBe('done 20');
    expect(calls()).toEqual([
      `first:${first.pid}`,
      `slow#1:${first.pid}`,
      `slow#2:${second.pid}`,
      `last:${second.pid}`,
    ]);
    expect(result.steps.map((s) => s.id)).toEqual(['first', 'slow', 'last']);
  });
});

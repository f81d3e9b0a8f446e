/*
 * Waiting steps and chains across real process restarts:
 * - a `.then()` chain whose next run is started while a worker runs, then the worker is SIGKILLed before
 *   the next run ran a step, and a new worker process finishes it;
 * - a `.sleep()` whose Temporal server (our own dev server on a SQLite file) is stopped and started again
 *   while the timer is pending: the timer still fires, and the run ends on a new worker.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { readEnv } from '../../src/config';
import { DevServer } from '../../src/devserver/dev-server';
import { pipeline } from '../../src/pipeline';
import { waitFor } from '../helpers/wait-for';
import { killWorkerProcess, startWorkerProcess, type WorkerTarget } from './outage-env';

// The steps of test/chaos/worker-process.ts: first(x) = x + 1, last(x) = `done ${x}`.
const steps = ['first', 'last'];
const children: ChildProcess[] = [];
const dirs: string[] = [];
let markerDir: string;

beforeAll(() => {
  markerDir = mkdtempSync(path.join(tmpdir(), 'tflow-flow-nodes-'));
  dirs.push(markerDir);
});
afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function calls(): string[] {
  const file = path.join(markerDir, 'calls.log');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
}

async function startWorker(target: Omit<WorkerTarget, 'markerDir' | 'bundlePath'>): Promise<ChildProcess> {
  const child = await startWorkerProcess({
    ...target,
    markerDir,
    bundlePath: inject('workflowBundlePath'),
  });
  children.push(child);
  return child;
}

describe('across restarts', () => {
  it('a .then chain: the next run, started before the worker is killed, finishes on a new worker', async () => {
    rmSync(path.join(markerDir, 'calls.log'), { force: true });
    const address = inject('temporalAddress');
    const namespace = inject('temporalNamespace');
    const taskQueue = `chain-restart-${Date.now().toString(36)}`;
    const connection = await Connection.connect({ address });
    try {
      const client = new Client({ connection, namespace });
      const pipelines = new PipelineClient(client, { taskQueue, steps });
      const next = pipeline('chain-next', { steps }).step('last');
      const first = pipeline('chain-first', { steps }).step('first').then(next, { delay: '3s' });

      const worker = await startWorker({ address, namespace, taskQueue });
      const result = await (await pipelines.start(first, [1], { workflowId: `${taskQueue}-first` })).result();
      expect(result.output).toBe(2);
      const chained = result.chained![0]!;
      expect(chained.workflowId).toBe(`${taskQueue}-first-then-chain-next`);
      // Killed while the next run waits for its delay: it has run no step yet.
      await killWorkerProcess(worker);
      expect(calls()).toEqual([`first:${worker.pid}`]);
      const handle = client.workflow.getHandle(chained.workflowId, chained.runId);
      expect((await handle.describe()).status.name).toBe('RUNNING');

      const second = await startWorker({ address, namespace, taskQueue });
      expect((await handle.result()).output).toBe('done 2');
      expect(calls()).toEqual([`first:${worker.pid}`, `last:${second.pid}`]);
      await killWorkerProcess(second);
    } finally {
      await connection.close();
    }
  }, 60_000);

  it('a .sleep: the timer survives a restart of the Temporal server', async () => {
    rmSync(path.join(markerDir, 'calls.log'), { force: true });
    const home = mkdtempSync(path.join(tmpdir(), 'tflow-sleep-server-'));
    dirs.push(home);
    const opts = {
      home,
      db: path.join(home, 'sleep.db'),
      cliPath: inject('temporalCli') || readEnv().temporalCli,
      port: 0,
      uiPort: false as const,
      install: false,
      sdkDownload: false,
    };
    let server = await DevServer.start(opts);
    const port = Number(server.address.split(':').pop());
    const taskQueue = `sleep-restart-${Date.now().toString(36)}`;
    const target = { address: server.address, namespace: server.namespace, taskQueue };
    let connection = await Connection.connect({ address: server.address });
    try {
      const p = pipeline('sleep-restart', { steps }).step('first').sleep('nap', '8s').step('last');
      const worker = await startWorker(target);
      const pipelines = new PipelineClient(new Client({ connection, namespace: server.namespace }), {
        taskQueue,
      });
      const handle = await pipelines.start(p, [1], { workflowId: `${taskQueue}-run` });
      const napping = await waitFor('the run to sleep', async () => {
        const progress = await pipelines.progress(handle.workflowId);
        return progress.waiting?.[0]?.step === 'nap' ? progress : undefined;
      });
      const until = Date.parse(napping.waiting![0]!.until!);

      await killWorkerProcess(worker);
      await connection.close();
      await server.stop();
      // Part of the test: the server is down for a while, on the clock, inside the timer.
      await new Promise((r) => setTimeout(r, 2_000));
      server = await DevServer.start({ ...opts, port });
      expect(Date.now()).toBeLessThan(until);
      connection = await Connection.connect({ address: server.address });
      const client = new Client({ connection, namespace: server.namespace });
      const second = await startWorker(target);

      const result = await client.workflow.getHandle(handle.workflowId).result();
      expect(result.output).toBe('done 2');
      expect(Date.now()).toBeGreaterThanOrEqual(until);
      expect(calls()).toEqual([`first:${worker.pid}`, `last:${second.pid}`]);
      const history = await client.workflow.getHandle(handle.workflowId).fetchHistory();
      expect(history.events?.filter((e) => e.timerFiredEventAttributes)).toHaveLength(1);
      await killWorkerProcess(second);
    } finally {
      await connection.close();
      await server.stop();
    }
  }, 120_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { serveMetrics, type MetricsServer } from '../../src/worker/metrics-server';
import { WorkerMetrics } from '../../src/worker/metrics';
import type { Worker } from '@temporalio/worker';
import { connectTest, type TestContext } from '../helpers/temporal';

const steps = {
  async double(n: number) {
    return n * 2;
  },
  async explode(): Promise<never> {
    throw new Error('boom');
  },
};

let t: TestContext;
let worker: Worker;
let server: MetricsServer;
const metrics = new WorkerMetrics();

beforeAll(async () => {
  t = await connectTest('metrics');
  worker = await t.startWorker(steps, { onRunFinished: metrics.recordRun });
  server = await serveMetrics({ metrics, worker, port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await server?.close();
  await t?.close();
});

describe('worker /metrics and /healthz', () => {
  it('counts finished runs by pipeline and status, with durations', async () => {
    const client = new PipelineClient(t.client, { taskQueue: t.taskQueue });
    await client.run(pipeline('metered').step('double'), [21]);
    await client.run(pipeline('metered').step('double'), [1]);
    await expect(
      client.run(pipeline('doomed').step('explode', { retry: { maximumAttempts: 1 } })),
    ).rejects.toThrow();

    const body = await fetch(`${server.url}/metrics`).then((r) => r.text());
    expect(body).toContain('tflow_runs_finished_total{pipeline="metered",job="",status="completed"} 2');
    expect(body).toContain('tflow_runs_finished_total{pipeline="doomed",job="",status="failed"} 1');
    expect(body).toMatch(/tflow_run_duration_seconds_count\{pipeline="metered",status="completed"\} 2/);
  });

  it('observes the schedule lag of scheduled runs only', async () => {
    const scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue });
    const jobId = await scheduler.scheduleInterval(pipeline('lagged').step('double'), {
      jobId: t.uid('lagged'),
      every: '1h',
      args: [2],
      paused: true,
    });
    await scheduler.triggerJob(jobId);
    const line = `tflow_schedule_lag_seconds_count{pipeline="lagged",job="${jobId}"} 1`;
    await expect
      .poll(async () => fetch(`${server.url}/metrics`).then((r) => r.text()), {
        timeout: 20_000,
        interval: 200,
      })
      .toContain(line);
    const body = await fetch(`${server.url}/metrics`).then((r) => r.text());
    expect(body).not.toContain('tflow_schedule_lag_seconds_count{pipeline="metered"');
    await scheduler.removeJob(jobId);
  });

  it('reports the worker state on /healthz', async () => {
    const ok = await fetch(`${server.url}/healthz`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('RUNNING\n');
    const missing = await fetch(`${server.url}/nope`);
    expect(missing.status).toBe(404);
  });

  it('answers 503 with the state once the worker is not running', async () => {
    const stopped = await serveMetrics({
      metrics,
      worker: { getState: () => 'DRAINING' },
      port: 0,
      host: '127.0.0.1',
    });
    try {
      const res = await fetch(`${stopped.url}/healthz`);
      expect(res.status).toBe(503);
      expect(await res.text()).toBe('DRAINING\n');
    } finally {
      await stopped.close();
    }
  });
});

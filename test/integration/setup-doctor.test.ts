import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pipeline } from '../../src/pipeline/builder';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { SetupRequiredError } from '../../src/client/errors';
import { SearchAttributeTypeError } from '../../src/setup/errors';
import { setupNamespace } from '../../src/setup/setup-namespace';
import { readSearchAttributes } from '../../src/setup/search-attributes';
import type { DoctorReport } from '../../src/setup/doctor-types';
import { createWorker } from '../../src/worker/create-worker';
import { PlainServer, runTflow, unusedPort } from '../helpers/plain-server';
import { readEnv } from '../../src/config';
import { DevServer } from '../../src/devserver/dev-server';

/*
 * A new user's path on a plain `temporal server start-dev` (no search attributes of ours, 24 h
 * retention): the first run fails saying to run `tflow setup`; `tflow setup` registers what is missing;
 * runs then work; `tflow doctor` tells a healthy setup from a broken one.
 */

const steps = { greet: async (name: string) => `hello ${name}` };
const hello = pipeline('setup-hello', { steps, timeout: '1m' }).step('greet');

let server: PlainServer;
let connection: Connection;
let client: Client;
const doctor = async (taskQueue: string) => {
  const r = await runTflow(['doctor', '--address', server.address, '--task-queue', taskQueue, '--json']);
  const report = JSON.parse(r.stdout) as DoctorReport;
  return { code: r.code, report, status: Object.fromEntries(report.checks.map((c) => [c.id, c.status])) };
};

describe('a plain dev server before and after `tflow setup`', () => {
  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    server = await PlainServer.start(['clashing']);
    connection = await Connection.connect({ address: server.address });
    client = new Client({ connection });
  });
  afterAll(async () => {
    await connection?.close();
    await server?.stop();
  });

  it('fails the first run and the first job with SetupRequiredError naming the attribute and `tflow setup`', async () => {
    const taskQueue = `setup-${randomUUID()}`;
    const run = new PipelineClient(client, { taskQueue }).start(hello, ['x']);
    await expect(run).rejects.toBeInstanceOf(SetupRequiredError);
    await expect(run).rejects.toMatchObject({
      attribute: 'TflowPipeline',
      namespace: 'default',
      message: expect.stringContaining('run `npx tflow setup`') as unknown,
    });
    const job = new PipelineScheduler(client, { taskQueue }).schedule(hello, {
      cron: '0 2 * * *',
      jobId: `setup-job-${randomUUID()}`,
    });
    await expect(job).rejects.toBeInstanceOf(SetupRequiredError);
  });

  it('doctor says the attributes are missing and the retention short, and exits 1', async () => {
    const { code, report, status } = await doctor(`none-${randomUUID()}`);
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(status).toMatchObject({
      server: 'ok',
      namespace: 'ok',
      'search-attributes': 'fail',
      retention: 'warn',
      'schedule-start-rate': 'unknown',
    });
    const attrs = report.checks.find((c) => c.id === 'search-attributes')!;
    expect(attrs.summary).toContain(
      'missing: TflowPipeline, TflowOutcome, TflowJob, TflowAlerts, TflowSet, TflowAlertsAt',
    );
    expect(attrs.fix).toBe('npx tflow setup');
  });

  it('`tflow setup` registers them and warns about the 1-day retention; a second run has nothing to change', async () => {
    const first = await runTflow(['setup', '--address', server.address]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      'registered search attributes: TflowPipeline (Keyword), TflowOutcome (Keyword), TflowJob (Keyword), TflowAlerts (Text), TflowSet (Keyword), TflowAlertsAt (Datetime)',
    );
    expect(first.stdout).toContain(
      'warning: namespace "default" keeps closed runs 1 day: their history, dead letters and redrive are gone after that',
    );
    const second = await runTflow(['setup', '--address', server.address]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(
      'nothing to change: search attributes TflowPipeline, TflowOutcome, TflowJob, TflowAlerts, TflowSet, TflowAlertsAt present, retention 1 day',
    );
    expect(second.stdout).not.toContain('registered');
  });

  it('then a run works, and doctor is healthy with the worker polling (and fails without one)', async () => {
    const taskQueue = `setup-${randomUUID()}`;
    const native = await NativeConnection.connect({ address: server.address });
    let worker: Worker | undefined;
    let running: Promise<void> | undefined;
    try {
      worker = await createWorker({
        connection: native,
        taskQueue,
        steps,
        workflowBundle: { codePath: inject('workflowBundlePath') },
      });
      running = worker.run();
      expect(await new PipelineClient(client, { taskQueue }).run(hello, ['setup'])).toBe('hello setup');

      const healthy = await doctor(taskQueue);
      expect(healthy.status).toMatchObject({
        server: 'ok',
        'search-attributes': 'ok',
        workers: 'ok',
        jobs: 'ok',
      });
      expect(healthy.code).toBe(0);
      expect(healthy.report.ok).toBe(true);
      expect(healthy.report.checks.find((c) => c.id === 'workers')!.summary).toContain(
        'Which steps they register cannot be checked',
      );

      const noWorker = await doctor(`nobody-${randomUUID()}`);
      expect(noWorker.code).toBe(1);
      expect(noWorker.status.workers).toBe('fail');
      expect(noWorker.report.checks.find((c) => c.id === 'workers')!.fix).toContain('start a worker');
    } finally {
      worker?.shutdown();
      await running;
      await native.close();
    }
  });

  it('`tflow setup --retention 30d` sets the retention once; doctor then finds it fine', async () => {
    const set = await runTflow(['setup', '--address', server.address, '--retention', '30d']);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('retention: 1 day -> 30 days');
    const again = await runTflow(['setup', '--address', server.address, '--retention', '30d']);
    expect(again.stdout).toContain('nothing to change');
    expect(again.stdout).not.toContain('warning');
    const { status } = await doctor(`any-${randomUUID()}`);
    expect(status.retention).toBe('ok');
  });

  it('refuses a retention under a day, changing nothing', async () => {
    const r = await runTflow(['setup', '--address', server.address, '--retention', '12h']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `tflow: retention "12h" is under one day, Temporal's minimum: write '1d' or more (30d is a good default)`,
    );
  });

  it('an attribute of the wrong type is an error that says so, and nothing else is registered', async () => {
    const namespace = 'clashing';
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: { TflowJob: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_TEXT },
    });
    const setup = setupNamespace(connection, { namespace, retention: '30d' });
    await expect(setup).rejects.toBeInstanceOf(SearchAttributeTypeError);
    await expect(setup).rejects.toThrow(
      'search attribute "TflowJob" exists in namespace "clashing" as Text, but temporal-flow needs Keyword',
    );
    const after = await readSearchAttributes(connection, namespace);
    expect(after.filter((a) => a.actual !== undefined).map((a) => a.name)).toEqual(['TflowJob']);
    const d = await runTflow(['doctor', '--address', server.address, '--namespace', namespace, '--json']);
    expect(d.code).toBe(1);
    const report = JSON.parse(d.stdout) as DoctorReport;
    expect(report.checks.find((c) => c.id === 'search-attributes')).toMatchObject({
      status: 'fail',
      summary: 'TflowJob is Text, temporal-flow needs Keyword',
    });
  });
});

describe('an unreachable server', () => {
  it('`tflow jobs list` prints one line with the address and TEMPORAL_ADDRESS, and exits 1', async () => {
    const address = `127.0.0.1:${await unusedPort()}`;
    const r = await runTflow(['jobs', 'list', '--address', address]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      `tflow: cannot reach a Temporal server at ${address} (no answer before the connect timeout): start one (\`npx tflow dev\`) or set TEMPORAL_ADDRESS to the host:port of yours`,
    ]);
  });

  it('doctor fails the server check with the same words and skips the rest', async () => {
    const address = `127.0.0.1:${await unusedPort()}`;
    const r = await runTflow(['doctor', '--address', address]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`FAIL  server               cannot reach a Temporal server at ${address}`);
    expect(r.stdout).toContain('-     workers              not checked: the server check failed');
    expect(r.stdout).toContain('Runs are blocked: fix the FAIL lines above.');
  });
});

describe('the embedded dev server', () => {
  it('keeps closed runs 30 days by default (TFLOW_RETENTION unset)', async () => {
    const env = readEnv({ ...process.env, TFLOW_RETENTION: '' });
    const dev = await DevServer.startEphemeral({
      ...env,
      temporalCli: inject('temporalCli') || env.temporalCli,
    });
    try {
      const c = await Connection.connect({ address: dev.address });
      const ns = await c.workflowService.describeNamespace({ namespace: dev.namespace });
      await c.close();
      expect(Number(ns.config?.workflowExecutionRetentionTtl?.seconds)).toBe(30 * 24 * 3600);
    } finally {
      await dev.stop();
    }
  });
});

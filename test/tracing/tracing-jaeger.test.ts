import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { trace } from '@opentelemetry/api';
import type { Browser } from 'playwright-core';
import type { Worker } from '@temporalio/worker';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { resolveTracing, TRACE_ATTRIBUTES } from '../../src/client/tracing';
import { pipeline } from '../../src/pipeline';
import { createWorker } from '../../src/worker/create-worker';
import { APT_TIMEOUT_MS, launchChromium } from '../helpers/chromium';
import {
  findTraces,
  readTrace,
  startJaeger,
  tagOf,
  type JaegerProcess,
  type JaegerSpan,
} from '../helpers/jaeger';
import { connectTest, type TestContext } from '../helpers/temporal';
import { waitFor } from '../helpers/wait-for';

/*
 * Traces for real: a worker and clients with `tracing: true`, exporting over OTLP/HTTP to a Jaeger of the
 * test's own (built from the Go module proxy into .tflow/jaeger/, test/helpers/jaeger.ts) as the standard
 * OTEL_* variables say; the trace read back from Jaeger's query API; a screenshot of it in test-artifacts/.
 */
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts');
const SERVICE = 'tflow-tracing-test';

let t: TestContext;
let jaeger: JaegerProcess;
let worker: Worker;
let running: Promise<void>;
let browser: Browser | undefined;
const failedOnce = new Set<string>();

const steps = {
  async extract(region: string) {
    return `${region}-rows`;
  },
  async transform(rows: string) {
    // Fails its first attempt once per input: the retry is a second span of the same step.
    if (!failedOnce.has(rows)) {
      failedOnce.add(rows);
      throw new Error('transient: the warehouse is busy');
    }
    return rows.toUpperCase();
  },
  async load(rows: string) {
    return rows.length;
  },
};

const etl = pipeline('traced-etl', { steps })
  .step('extract')
  .step('transform', { retry: { maximumAttempts: 3, initialInterval: 100 } })
  .step('load');

beforeAll(async () => {
  jaeger = await startJaeger(inject('jaegerBinary'));
  // What an operator sets (read by src/config.ts when `tracing: true` is first resolved).
  vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', jaeger.otlpUrl);
  vi.stubEnv('OTEL_SERVICE_NAME', SERVICE);
  t = await connectTest('tracing');
  worker = await createWorker({
    connection: t.nativeConnection,
    namespace: t.namespace,
    taskQueue: t.taskQueue,
    steps,
    workflowBundle: { codePath: inject('tracedWorkflowBundlePath') },
    tracing: true,
  });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running;
  await t?.close();
  await jaeger?.stop();
  vi.unstubAllEnvs();
});

/** The spans of a trace once Jaeger has every one `ready` wants (spans arrive in batches). */
async function traceWhen(traceId: string, ready: (spans: JaegerSpan[]) => boolean): Promise<JaegerSpan[]> {
  await resolveTracing(true)!.forceFlush();
  return waitFor(
    `trace ${traceId} in Jaeger`,
    async () => {
      const spans = await readTrace(jaeger.queryUrl, traceId);
      return spans && ready(spans) ? spans : undefined;
    },
    30_000,
  );
}

const named = (spans: JaegerSpan[], name: string) => spans.filter((s) => s.operationName === name);
const parentOf = (span: JaegerSpan) => span.references.find((r) => r.refType === 'CHILD_OF')?.spanID;

describe('tracing on Temporal’s OpenTelemetry interceptors, read back from Jaeger', () => {
  let traceId: string;

  it("makes one trace from the caller's span to the run, with a span per step attempt", async () => {
    const client = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps, tracing: true });
    const caller = trace.getTracer('caller');
    const output = await caller.startActiveSpan('POST /etl', async (span) => {
      traceId = span.spanContext().traceId;
      try {
        return await client.run(etl, ['eu'], { workflowId: t.uid('traced') });
      } finally {
        span.end();
      }
    });
    expect(output).toBe(7);

    const spans = await traceWhen(traceId, (s) => named(s, 'RunActivity:load').length === 1);
    const one = (name: string) => {
      const found = named(spans, name);
      expect(found, `${name} in ${spans.map((s) => s.operationName).join(', ')}`).toHaveLength(1);
      return found[0]!;
    };
    const root = one('POST /etl');
    const start = one('StartWorkflow:pipelineWorkflow');
    const run = one('RunWorkflow:pipelineWorkflow');
    expect(parentOf(root)).toBeUndefined();
    expect(parentOf(start)).toBe(root.spanID);
    expect(parentOf(run)).toBe(start.spanID);
    expect(tagOf(run, TRACE_ATTRIBUTES.pipeline)).toBe('traced-etl');
    expect(tagOf(run, TRACE_ATTRIBUTES.jobId)).toBeUndefined();

    for (const step of ['extract', 'transform', 'load']) {
      const scheduled = one(`StartActivity:${step}`);
      expect(parentOf(scheduled)).toBe(run.spanID);
      expect(tagOf(scheduled, TRACE_ATTRIBUTES.step)).toBe(step);
      const attempts = named(spans, `RunActivity:${step}`);
      expect(attempts).toHaveLength(step === 'transform' ? 2 : 1);
      for (const attempt of attempts) {
        expect(parentOf(attempt)).toBe(scheduled.spanID);
        expect(tagOf(attempt, TRACE_ATTRIBUTES.step)).toBe(step);
        expect(tagOf(attempt, TRACE_ATTRIBUTES.pipeline)).toBe('traced-etl');
      }
    }
    const transform = named(spans, 'RunActivity:transform').sort(
      (a, b) => Number(tagOf(a, TRACE_ATTRIBUTES.attempt)) - Number(tagOf(b, TRACE_ATTRIBUTES.attempt)),
    );
    expect(transform.map((s) => tagOf(s, TRACE_ATTRIBUTES.attempt))).toEqual([1, 2]);
    // The failed attempt is an error span; the retry that succeeded is not.
    expect(tagOf(transform[0]!, 'error')).toBe(true);
    expect(tagOf(transform[1]!, 'error')).toBeUndefined();
    // Every span of the run is one process's service, as OTEL_SERVICE_NAME says.
    const services = await (await fetch(`${jaeger.queryUrl}/api/services`)).json();
    expect((services as { data: string[] }).data).toContain(SERVICE);
  });

  it('makes a scheduled run the root of its own trace, carrying the job id and the nominal time', async () => {
    const scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps, tracing: true });
    const jobId = await scheduler.scheduleInterval(etl, {
      jobId: t.uid('traced-job'),
      hours: 1,
      args: ['us'],
      paused: true,
    });
    let scheduledAt: Date | undefined;
    try {
      await scheduler.triggerJob(jobId);
      const [ran] = await waitFor('the triggered run', async () => {
        const job = await scheduler.getJob(jobId);
        return job.recentRuns.length === 1 ? job.recentRuns : undefined;
      });
      scheduledAt = ran!.scheduledAt;
      await expect(t.client.workflow.getHandle(ran!.workflowId).result()).resolves.toMatchObject({
        output: 7,
      });
    } finally {
      await scheduler.removeJob(jobId);
    }
    await resolveTracing(true)!.forceFlush();
    const [spans] = await waitFor(
      `the trace of job ${jobId} in Jaeger`,
      async () => {
        const found = await findTraces(jaeger.queryUrl, SERVICE, { [TRACE_ATTRIBUTES.jobId]: jobId });
        return found.length > 0 && found[0]!.some((s) => s.operationName === 'RunActivity:load')
          ? found
          : undefined;
      },
      30_000,
    );
    const run = named(spans!, 'RunWorkflow:pipelineWorkflow');
    expect(run).toHaveLength(1);
    expect(parentOf(run[0]!)).toBeUndefined();
    expect(tagOf(run[0]!, TRACE_ATTRIBUTES.jobId)).toBe(jobId);
    const nominal = tagOf(run[0]!, TRACE_ATTRIBUTES.nominalTime);
    // The run's own nominal time (Temporal's TemporalScheduledStartTime, to the whole second), the one its
    // occurrence and stepIdempotencyKey() use; the schedule's listing keeps the milliseconds.
    expect(typeof nominal).toBe('string');
    expect(Math.abs(new Date(String(nominal)).getTime() - scheduledAt.getTime())).toBeLessThan(1000);
    expect(tagOf(run[0]!, TRACE_ATTRIBUTES.occurrence)).toBe(`${jobId}@${String(nominal)}`);
    const attempts = spans!.filter((s) => s.operationName.startsWith('RunActivity:'));
    for (const step of ['extract', 'transform', 'load']) {
      const mine = attempts.filter((s) => tagOf(s, TRACE_ATTRIBUTES.step) === step);
      expect(mine.length, step).toBe(step === 'transform' ? 2 : 1);
      for (const s of mine) {
        expect(tagOf(s, TRACE_ATTRIBUTES.jobId)).toBe(jobId);
        expect(tagOf(s, TRACE_ATTRIBUTES.nominalTime)).toBe(nominal);
      }
    }
  });

  it(
    "takes a screenshot of the trace as Jaeger's query service serves it",
    async () => {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
      // A build from the Go module proxy embeds no UI assets (Jaeger's releases add them from the
      // jaeger-ui repository), so the trace page is the query API's: Chromium shows its JSON.
      await page.goto(`${jaeger.queryUrl}/api/traces/${traceId}`);
      const text = await page.locator('body').innerText();
      for (const name of ['POST /etl', 'RunWorkflow:pipelineWorkflow', 'RunActivity:transform'])
        expect(text).toContain(name);
      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, 'jaeger-trace.png'), fullPage: false });
    },
    3 * APT_TIMEOUT_MS + 60_000,
  );
});

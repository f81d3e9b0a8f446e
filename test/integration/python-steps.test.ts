import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { AesGcmPayloadCodec, codecDataConverter } from '../../src/codec';
import { readEnv } from '../../src/config';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { runDoctor } from '../../src/setup/doctor';
import { livePollers } from '../../src/setup/doctor-checks';
import { pipeline } from '../../src/pipeline';
import { imagePipeline, imageSteps } from '../../examples/python/image-pipeline';
import { ensurePythonEnv, PYTHON_PATH, type PythonEnv } from '../helpers/python';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * A pipeline whose middle steps run in Python (examples/python: a temporalio worker from PyPI, in the
 * .tflow/python environment) on a real server: they run, fail, are compensated in TypeScript, are
 * dead-lettered and redriven, and run from a schedule, with payload encryption on (both workers and the
 * client share the keys); and once with it off, where the history shows what the encrypted one hides.
 */

const ROOT = path.resolve(__dirname, '../..');
const WORKER = path.join(ROOT, 'examples', 'python', 'worker.py');
const keyId = '2025-06';
const key = randomBytes(32);
const codec = new AesGcmPayloadCodec({ keys: { [keyId]: key } });

let py: PythonEnv;
let enc: TestContext; // TypeScript worker with the codec; enc.client reads raw payloads
let plain: TestContext;
let encClient: Client;
let pipelines: PipelineClient;
const undone: string[] = [];
let cdnDown: string;
let tmp: string;
const pyQueue = `py-steps-${randomBytes(4).toString('hex')}`;
const plainPyQueue = `${pyQueue}-plain`;
const workers: ChildProcess[] = [];

/** Starts examples/python/worker.py on `queue` and waits until the server sees it poll. */
async function startPythonWorker(t: TestContext, queue: string, encrypted: boolean): Promise<void> {
  const child = spawn(py.python, [WORKER], {
    env: {
      ...process.env,
      PYTHONPATH: PYTHON_PATH,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: t.namespace,
      TFLOW_PY_TASK_QUEUE: queue,
      EXAMPLE_CDN_DOWN_FILE: cdnDown,
      TFLOW_PY_RATE_LIMITS: encrypted ? 'resize=5' : '',
      ...(encrypted
        ? { TFLOW_CODEC_KEYS: `${keyId}:${key.toString('base64')}`, TFLOW_CODEC_KEY_ID: keyId }
        : { TFLOW_CODEC_KEYS: '' }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  workers.push(child);
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  await waitFor(
    `the Python worker polling ${queue}`,
    async () => {
      if (child.exitCode !== null) throw new Error(`the Python worker exited ${child.exitCode}: ${output}`);
      const pollers = await livePollers(
        t.connection,
        t.namespace,
        queue,
        temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
      );
      return pollers.length > 0 ? true : undefined;
    },
    90_000,
  );
  if (encrypted) {
    await waitFor(
      `the Python worker polling ${queue}--rate--resize`,
      async () =>
        (
          await livePollers(
            t.connection,
            t.namespace,
            `${queue}--rate--resize`,
            temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
          )
        ).length > 0
          ? true
          : undefined,
      90_000,
    );
  }
  expect(output).toContain(`python worker polling ${queue}${encrypted ? ' (payloads encrypted)' : ''}`);
}

beforeAll(async () => {
  const env = readEnv();
  py = await ensurePythonEnv({ explicitPath: env.python, searchPath: env.path });
  tmp = await mkdtemp(path.join(os.tmpdir(), 'tflow-py-'));
  cdnDown = path.join(tmp, 'cdn-down');
  enc = await connectTest('py-steps');
  plain = await connectTest('py-steps-plain');
  await enc.startWorker(imageSteps(undone), { codec });
  await plain.startWorker(imageSteps(undone));
  encClient = new Client({
    connection: enc.connection,
    namespace: enc.namespace,
    dataConverter: codecDataConverter(codec),
  });
  pipelines = new PipelineClient(encClient, { taskQueue: enc.taskQueue, steps: imageSteps() });
  await Promise.all([startPythonWorker(enc, pyQueue, true), startPythonWorker(plain, plainPyQueue, false)]);
}, 600_000);

afterAll(async () => {
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          if (w.exitCode !== null) return resolve();
          w.once('exit', () => resolve());
          w.kill('SIGTERM');
        }),
    ),
  );
  await enc?.close();
  await plain?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** Every byte of a run's history as the server keeps it (no codec). */
async function rawHistory(t: TestContext, workflowId: string): Promise<string> {
  const history = await t.client.workflow.getHandle(workflowId).fetchHistory();
  return Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('latin1');
}

/** The PipelineFailed details of a failed run. */
function failureOf(err: unknown): Record<string, unknown> {
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect((cause as ApplicationFailure).type).toBe('PipelineFailed');
  return (cause as ApplicationFailure).details![0] as Record<string, unknown>;
}

const cat = { url: 'https://example.com/cat.png', width: 640 };

describe('a pipeline with steps in Python, payloads encrypted', () => {
  it('runs a pipeline whose middle step is Python: fetch (TS) -> resize, publish (Python)', async () => {
    const workflowId = enc.uid('images');
    const output = await pipelines.run(imagePipeline(pyQueue), [cat], { workflowId });
    expect(output).toEqual({
      published: 'https://example.com/cat.png?w=200',
      resizedBy: expect.stringMatching(/^python 3\./),
      publishKey: `${workflowId}/publish`,
      run: { pipeline: 'images' },
    });
    // The server holds ciphertext only: neither the TypeScript input nor the Python result shows.
    const raw = await rawHistory(enc, workflowId);
    expect(raw).toContain('binary/encrypted');
    expect(raw).not.toContain('example.com');
    expect(raw).not.toContain('resizedBy');
    // The steps ran on the queues the spec names.
    const scheduled = (await enc.client.workflow.getHandle(workflowId).fetchHistory()).events!.flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : [],
    );
    expect(scheduled.map((a) => [a.activityType!.name, a.taskQueue!.name])).toEqual([
      ['fetchImage', enc.taskQueue],
      ['resize', pyQueue],
      ['publish', pyQueue],
    ]);
  });

  it('a Python step that fails for good is compensated in TypeScript, and the run fails with its type', async () => {
    undone.length = 0;
    const err = await pipelines
      .run(imagePipeline(pyQueue), [{ url: 'https://example.com/huge.png', width: 20_000 }])
      .catch((e: unknown) => e);
    expect(failureOf(err)).toMatchObject({
      failedStep: 'resize',
      errorType: 'ImageTooWide',
      message: 'image is 20000 px wide, more than 10000',
      compensations: [{ stepId: 'fetchImage', activity: 'discardImage', status: 'completed' }],
    });
    expect(undone).toEqual(['discardImage https://example.com/huge.png']);
  });

  it('a retryable Python failure dead-letters the run after its attempts; a redrive runs it with the same key', async () => {
    undone.length = 0;
    await writeFile(cdnDown, 'down');
    const workflowId = enc.uid('images-cdn');
    const err = await pipelines.run(imagePipeline(pyQueue), [cat], { workflowId }).catch((e: unknown) => e);
    expect(failureOf(err)).toMatchObject({
      failedStep: 'publish',
      errorType: 'CdnUnavailable',
      attempts: 2,
      compensations: [
        { stepId: 'resize', activity: 'unresize', status: 'completed' },
        { stepId: 'fetchImage', activity: 'discardImage', status: 'completed' },
      ],
    });
    // TypeScript undid what Python did: unresize got resize's argument and result.
    expect(undone).toEqual([
      'unresize https://example.com/cat.png?w=200',
      'discardImage https://example.com/cat.png',
    ]);
    const letter = await waitFor(
      `dead letter of ${workflowId}`,
      async () =>
        (await pipelines.listDeadLetters({ pipeline: 'images' })).find((d) => d.workflowId === workflowId),
      60_000,
    );
    expect(letter).toMatchObject({ failedStep: 'publish', message: 'the CDN is unavailable' });

    await rm(cdnDown);
    const handle = await pipelines.redrive(workflowId);
    const { output } = await handle.result();
    // The redrive's publish has the first run's key: the CDN would see one publication, not two.
    expect(output).toMatchObject({
      publishKey: `${workflowId}/publish`,
      published: 'https://example.com/cat.png?w=200',
    });
    await waitFor(
      `dead letter of ${workflowId} redriven`,
      async () =>
        (await pipelines.listDeadLetters({ pipeline: 'images' })).some((d) => d.workflowId === workflowId)
          ? undefined
          : true,
      60_000,
    );
  });

  it('runs a scheduled job through it: the Python step reads the job and its occurrence', async () => {
    const scheduler = new PipelineScheduler(encClient, { taskQueue: enc.taskQueue, steps: imageSteps() });
    const jobId = enc.uid('images-job');
    await scheduler.schedule(imagePipeline(pyQueue), { cron: '0 0 1 1 *', jobId, args: [cat] });
    try {
      await scheduler.triggerJob(jobId);
      const ran = await waitFor(
        `a completed run of job ${jobId}`,
        async () => (await scheduler.getHistory(jobId, { limit: 5 })).find((r) => r.status === 'completed'),
        90_000,
      );
      const { output } = (await encClient.workflow.getHandle(ran.workflowId).result()) as {
        output: Record<string, unknown>;
      };
      expect(output).toMatchObject({ run: { pipeline: 'images', jobId } });
      // <jobId>@<nominal time>/<step>: the same for every attempt and redrive of this occurrence.
      expect(output.publishKey).toMatch(new RegExp(`^${jobId}@\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z/publish$`));
      expect((output.run as { nominalTime?: string }).nominalTime).toBe(
        (output.publishKey as string).slice(jobId.length + 1, -'/publish'.length),
      );
    } finally {
      await scheduler.removeJob(jobId);
    }
  });

  it("a rate-limited Python step runs on its queue's companion, which the Python worker polls at that rate", async () => {
    const workflowId = enc.uid('images-limited');
    const limited = pipeline('images-limited', {
      steps: imageSteps(),
      remote: { resize: pyQueue, publish: pyQueue },
    })
      .step('resize', { rateLimit: '5/s' })
      .step('publish');
    const output = await pipelines.run(limited, [cat], { workflowId });
    expect(output).toMatchObject({ publishKey: `${workflowId}/publish` });
    const scheduled = (await enc.client.workflow.getHandle(workflowId).fetchHistory()).events!.flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : [],
    );
    expect(scheduled.map((a) => [a.activityType!.name, a.taskQueue!.name])).toEqual([
      ['resize', `${pyQueue}--rate--resize`],
      ['publish', pyQueue],
    ]);
  });

  it('tflow doctor names the queue and the job when nothing polls a queue a job needs, and not a queue the Python worker polls', async () => {
    const scheduler = new PipelineScheduler(encClient, { taskQueue: enc.taskQueue });
    const served = enc.uid('images-served');
    const orphan = enc.uid('images-orphan');
    const nobody = `${pyQueue}-nobody`;
    await scheduler.schedule(imagePipeline(pyQueue, 'images-served'), {
      cron: '0 0 1 1 *',
      jobId: served,
      args: [cat],
      paused: true,
    });
    await scheduler.schedule(pipeline('images-orphan', { remote: { resize: nobody } }).step('resize'), {
      cron: '0 0 1 1 *',
      jobId: orphan,
      args: [cat],
      paused: true,
    });
    try {
      // Doctor finds the jobs by a listing, which visibility serves a moment after a create.
      await waitFor('both jobs listed', async () => {
        const ids = (await scheduler.listJobs({ includeForeign: false })).map((j) => j.id);
        return ids.includes(served) && ids.includes(orphan) ? true : undefined;
      });
      const report = await runDoctor({
        connection: { address: inject('temporalAddress') },
        namespace: enc.namespace,
        taskQueue: enc.taskQueue,
        dataConverter: codecDataConverter(codec),
      });
      const check = report.checks.find((c) => c.id === 'step-queues')!;
      expect(check.status).toBe('fail');
      expect(check.summary).toContain(
        `no worker polls task queue "${nobody}", needed by job "${orphan}" (step resize)`,
      );
      expect(check.summary).not.toContain(`"${pyQueue}"`);
      expect(check.fix).toContain(`"${nobody}"`);
      expect(report.ok).toBe(false);
    } finally {
      await scheduler.removeJob(served);
      await scheduler.removeJob(orphan);
    }
  });
});

describe('the same pipeline with payloads in the clear', () => {
  it('runs with a plain Python worker, and its history shows what the encrypted one hides', async () => {
    const client = new PipelineClient(plain.client, { taskQueue: plain.taskQueue });
    const workflowId = plain.uid('images-plain');
    const output = await client.run(imagePipeline(plainPyQueue), [cat], { workflowId });
    expect(output).toMatchObject({
      published: 'https://example.com/cat.png?w=200',
      publishKey: `${workflowId}/publish`,
    });
    const raw = await rawHistory(plain, workflowId);
    expect(raw).toContain('example.com');
    expect(raw).toContain('resizedBy');
  });
});

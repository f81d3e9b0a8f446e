import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { AesGcmPayloadCodec, codecDataConverter, PayloadDecryptionError, serveCodec } from '../../src/codec';
import { readEnv } from '../../src/config';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * With the codec on, the server stores only ciphertext: the raw history (read by a client without the
 * codec, and by `temporal workflow show`) holds no plaintext marker, while the codec client gets the right
 * result. The same run without the codec shows that the check can fail.
 */
const MARKER = `PLAINTEXT-${randomBytes(6).toString('hex')}`;
const codec = new AesGcmPayloadCodec({ keys: { k1: randomBytes(32) } });

const steps = {
  async wrap(secret: string) {
    return { secret, note: `${MARKER}-result` };
  },
  async unwrap(v: { secret: string; note: string }) {
    return `${v.secret}|${v.note}`;
  },
};
const secretPipeline = pipeline('codec-secret', { steps, timeout: '2m' }).step('wrap').step('unwrap');

let plain: TestContext; // worker and client without the codec
let t: TestContext; // worker with the codec; t.client has no codec (it reads the raw history)
let codecClient: Client;
const execFileP = promisify(execFile);
const cli = inject('temporalCli') || readEnv().temporalCli;

beforeAll(async () => {
  t = await connectTest('codec');
  plain = await connectTest('codec-plain');
  await t.startWorker(steps, { codec });
  await plain.startWorker(steps);
  codecClient = new Client({
    connection: t.connection,
    namespace: t.namespace,
    dataConverter: codecDataConverter(codec),
  });
});
afterAll(async () => {
  await t?.close();
  await plain?.close();
});

/** Every byte of a run's history as the server stores it, read by a client without the codec. */
async function rawHistory(c: TestContext, workflowId: string): Promise<string> {
  const history = await c.client.workflow.getHandle(workflowId).fetchHistory();
  return Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('latin1');
}

/**
 * `temporal workflow show --output json`, with every payload's base64 `data` decoded, so that a plaintext
 * marker is found wherever the CLI would show it.
 */
async function cliShow(workflowId: string, extra: string[] = []): Promise<string> {
  const { stdout } = await execFileP(cli!, [
    'workflow',
    'show',
    '--address',
    inject('temporalAddress'),
    '--namespace',
    t.namespace,
    '-w',
    workflowId,
    '--output',
    'json',
    ...extra,
  ]);
  const texts: string[] = [stdout];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) {
      for (const [k, child] of Object.entries(v)) {
        if (k === 'data' && typeof child === 'string')
          texts.push(Buffer.from(child, 'base64').toString('latin1'));
        else walk(child);
      }
    }
  };
  walk(JSON.parse(stdout));
  return texts.join('\n');
}

describe('encrypted payloads', () => {
  it('a pipeline run works through the codec and its raw history holds no plaintext', async () => {
    const workflowId = t.uid('codec-run');
    const pipelines = new PipelineClient(codecClient, { taskQueue: t.taskQueue, steps });
    const output = await pipelines.run(secretPipeline, [`${MARKER}-arg`], { workflowId });
    expect(output).toBe(`${MARKER}-arg|${MARKER}-result`);
    expect(await rawHistory(t, workflowId)).not.toContain(MARKER);
    expect(await cliShow(workflowId)).not.toContain(MARKER);

    // The same run without the codec: the marker is there, so the checks above can fail.
    const plainId = plain.uid('plain-run');
    await new PipelineClient(plain.client, { taskQueue: plain.taskQueue }).run(
      secretPipeline,
      [`${MARKER}-arg`],
      { workflowId: plainId },
    );
    expect(await rawHistory(plain, plainId)).toContain(`${MARKER}-arg`);
    expect(await cliShow(plainId)).toContain(`${MARKER}-result`);
  });

  it('a scheduled job keeps its args encrypted in the schedule and in its runs', async () => {
    const scheduler = new PipelineScheduler(codecClient, { taskQueue: t.taskQueue, steps });
    const jobId = await scheduler.scheduleInterval(secretPipeline, {
      jobId: t.uid('codec-job'),
      hours: 1,
      args: [`${MARKER}-job`],
      paused: true,
    });
    try {
      expect(await scheduler.getJob(jobId)).toMatchObject({ args: [`${MARKER}-job`] });
      const raw = await t.client.workflowService.describeSchedule({
        namespace: t.namespace,
        scheduleId: jobId,
      });
      const rawBytes = temporal.api.workflowservice.v1.DescribeScheduleResponse.encode(raw).finish();
      expect(Buffer.from(rawBytes).toString('latin1')).not.toContain(MARKER);

      await scheduler.triggerJob(jobId);
      const [run] = await waitFor('the triggered run', async () => {
        const job = await scheduler.getJob(jobId);
        return job.recentRuns.length === 1 ? job.recentRuns : undefined;
      });
      const result = (await codecClient.workflow.getHandle(run!.workflowId).result()) as { output: unknown };
      expect(result.output).toBe(`${MARKER}-job|${MARKER}-result`);
      expect(await rawHistory(t, run!.workflowId)).not.toContain(MARKER);
      expect(await cliShow(run!.workflowId)).not.toContain(MARKER);

      // A scheduler without the codec cannot read the job, and says why.
      const blind = new PipelineScheduler(t.client, { taskQueue: t.taskQueue });
      const err = await blind.getJob(jobId).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PayloadDecryptionError);
      expect(err).toMatchObject({ reason: 'no-codec' });
    } finally {
      await scheduler.removeJob(jobId);
    }
  });

  it('a client with a wrong key, or without the key id, gets a typed PayloadDecryptionError', async () => {
    const workflowId = t.uid('codec-keys');
    await new PipelineClient(codecClient, { taskQueue: t.taskQueue }).run(secretPipeline, ['x'], {
      workflowId,
    });
    const clientWith = (c: AesGcmPayloadCodec) =>
      new Client({ connection: t.connection, namespace: t.namespace, dataConverter: codecDataConverter(c) });

    const wrongKey = clientWith(new AesGcmPayloadCodec({ keys: { k1: randomBytes(32) } }));
    const wrong = await wrongKey.workflow
      .getHandle(workflowId)
      .result()
      .catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(PayloadDecryptionError);
    expect(wrong).toMatchObject({ reason: 'authentication-failed', keyId: 'k1' });

    const otherId = clientWith(new AesGcmPayloadCodec({ keys: { k2: randomBytes(32) } }));
    const missing = await otherId.workflow
      .getHandle(workflowId)
      .result()
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PayloadDecryptionError);
    expect((missing as Error).message).toContain('encrypted with key "k1", which this codec does not know');
  });

  it('a worker without the key fails the workflow task with the typed message, and keeps running', async () => {
    const other = await connectTest('codec-other-key');
    try {
      const worker = await other.startWorker(steps, {
        codec: new AesGcmPayloadCodec({ keys: { k2: randomBytes(32) } }),
      });
      const pipelines = new PipelineClient(codecClient, { taskQueue: other.taskQueue });
      const handle = await pipelines.start(secretPipeline, ['x'], { workflowId: other.uid('codec-no-key') });
      const failure = await waitFor('a failed workflow task', async () => {
        const history = await other.client.workflow.getHandle(handle.workflowId).fetchHistory();
        return history.events?.find((e) => e.workflowTaskFailedEventAttributes)
          ?.workflowTaskFailedEventAttributes?.failure?.message;
      });
      expect(failure).toBe(
        'a payload is encrypted with key "k1", which this codec does not know (current key: "k2"); add that key (TFLOW_CODEC_KEYS) to read it',
      );
      expect(worker.getState()).toBe('RUNNING');
      await handle.terminate('test over');
    } finally {
      await other.close();
    }
  });
});

/** A payload in the protocol's JSON form. */
function jsonPayload(p: { metadata?: Record<string, Uint8Array | null> | null; data?: Uint8Array | null }) {
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]),
    ),
    data: Buffer.from(p.data ?? []).toString('base64'),
  };
}

describe('codec server', () => {
  it('decodes the run history for `temporal workflow show --codec-endpoint`, and encodes over HTTP', async () => {
    const workflowId = t.uid('codec-server');
    await new PipelineClient(codecClient, { taskQueue: t.taskQueue }).run(secretPipeline, [`${MARKER}-arg`], {
      workflowId,
    });
    // /encode is served without a token only when asked (see codec-server-access.test.ts).
    const server = await serveCodec({ codec, corsOrigins: ['http://localhost:8233'], encode: true });
    try {
      expect(await cliShow(workflowId)).not.toContain(MARKER);
      expect(await cliShow(workflowId, ['--codec-endpoint', server.url])).toContain(`${MARKER}-arg`);

      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
      const plainPayload = jsonPayload({
        metadata: { encoding: Buffer.from('json/plain') },
        data: Buffer.from(JSON.stringify(`${MARKER}-http`)),
      });
      const encoded = (await (await post('/encode', { payloads: [plainPayload] })).json()) as {
        payloads: { data: string }[];
      };
      expect(Buffer.from(encoded.payloads[0]!.data, 'base64').toString('latin1')).not.toContain(MARKER);
      const decoded = await post('/decode', encoded, { 'X-Namespace': t.namespace });
      expect(await decoded.json()).toEqual({ payloads: [plainPayload] });

      const preflight = await fetch(`${server.url}/decode`, {
        method: 'OPTIONS',
        headers: {
          Origin: 'http://localhost:8233',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type,x-namespace',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
      expect(preflight.headers.get('access-control-allow-headers')).toContain('X-Namespace');
      const foreign = await fetch(`${server.url}/decode`, {
        method: 'OPTIONS',
        headers: { Origin: 'http://evil' },
      });
      expect(foreign.status).toBe(403);
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();

      const bad = await post('/decode', { nope: 1 });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ message: 'the body has no "payloads" array' });
      const otherKey = new AesGcmPayloadCodec({ keys: { k9: randomBytes(32) } });
      const [foreignPayload] = await otherKey.encode([{ metadata: {}, data: new Uint8Array([1]) }]);
      const unknown = await post('/decode', { payloads: [jsonPayload(foreignPayload!)] });
      expect(unknown.status).toBe(400);
      expect(((await unknown.json()) as { message: string }).message).toContain('key "k9"');
      expect((await fetch(`${server.url}/other`, { method: 'POST' })).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('chooses the codec by X-Namespace when given a function, and refuses other namespaces', async () => {
    const server = await serveCodec({ codec: (ns) => (ns === 'prod' ? codec : undefined), encode: true });
    try {
      const body = JSON.stringify({ payloads: [] });
      const ok = await fetch(`${server.url}/encode`, {
        method: 'POST',
        body,
        headers: { 'X-Namespace': 'prod' },
      });
      expect(ok.status).toBe(200);
      const refused = await fetch(`${server.url}/encode`, {
        method: 'POST',
        body,
        headers: { 'X-Namespace': 'dev' },
      });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({ message: 'no codec for namespace "dev"' });
    } finally {
      await server.close();
    }
  });
});

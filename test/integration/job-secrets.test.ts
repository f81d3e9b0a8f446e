import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client } from '@temporalio/client';
import { ApplicationFailure, TypedSearchAttributes } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { AesGcmPayloadCodec, codecDataConverter } from '../../src/codec';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { findJobDisagreements } from '../../src/client/jobs/job-repair';
import type { JobAlerts } from '../../src/client/jobs/store/job-alerts';
import { MAX_RECORD_BYTES } from '../../src/client/jobs/store/job-record';
import { createWatchdogWorker } from '../../src/worker/watchdog-worker';
import { JOB_SEARCH_ATTRIBUTE } from '../../src/workflows/search-attributes';
import { deadLetterWorkflowId } from '../../src/workflows/dead-letters/dead-letter-defs';
import {
  ALERT_DELIVERY_WORKFLOW_TYPE,
  alertEvaluatorWorkflowId,
} from '../../src/workflows/alerts/evaluator-defs';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * Webhook secrets given as alert targets (a Slack URL, an `authorization` header) never reach what a payload
 * codec cannot encrypt: no search attribute of the schedule (describe, and the listing served from
 * visibility) holds them, whatever the size of the job's record; and with the codec on, no byte the server
 * keeps of the schedule, of the job's watchdog (history, memo, search attributes), of a run that raised an
 * alert or of its dead letter holds them in clear. Read raw, by a client without the codec.
 */
const SLACK_SECRET = `slack${randomBytes(8).toString('hex')}`;
const BEARER_SECRET = `bearer${randomBytes(8).toString('hex')}`;
const SECRETS = [SLACK_SECRET, BEARER_SECRET];
const codec = new AesGcmPayloadCodec({ keys: { k1: randomBytes(32) } });

/** What the webhook received: path and headers of each post, with the event's job id. */
const posts: { jobId: string; url: string; headers: IncomingHttpHeaders; kind: string }[] = [];
let hook: Server;
let hookUrl: string;

const steps = {
  async work(x: number) {
    return x + 1;
  },
  async broken(): Promise<number> {
    throw ApplicationFailure.create({ type: 'Broken', message: 'broken on purpose', nonRetryable: true });
  },
};
const work = pipeline('secrets-work', { steps }).step('work');
const broken = pipeline('secrets-broken', { steps }).step('broken');

let t: TestContext;
let codecClient: Client;
let scheduler: PipelineScheduler;
let watchdogQueue: string;
let watchdog: { worker: Worker; done: Promise<void> } | undefined;

beforeAll(async () => {
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const event = JSON.parse(body) as { jobId: string; kind: string };
      posts.push({ jobId: event.jobId, kind: event.kind, url: req.url ?? '', headers: req.headers });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;

  t = await connectTest('secrets');
  watchdogQueue = `${t.taskQueue}-watchdog`;
  await t.startWorker(steps, { codec });
  const worker = await createWatchdogWorker({
    connection: t.nativeConnection,
    namespace: t.namespace,
    taskQueue: watchdogQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    codec,
    evaluator: { waveMs: 1_000, heartbeatTimeoutMs: 3_000 },
  });
  watchdog = { worker, done: worker.run() };
  codecClient = new Client({
    connection: t.connection,
    namespace: t.namespace,
    dataConverter: codecDataConverter(codec),
  });
  scheduler = new PipelineScheduler(codecClient, {
    taskQueue: t.taskQueue,
    steps,
    watchdogTaskQueue: watchdogQueue,
  });
});
afterAll(async () => {
  if (watchdog?.worker.getState() === 'RUNNING') watchdog.worker.shutdown();
  await watchdog?.done;
  await t?.close();
  await new Promise((resolve) => hook?.close(resolve));
});

const slack = () => ({ webhook: { url: `${hookUrl}/services/T0/B0/${SLACK_SECRET}` } });
const withBearer = (path: string) => ({
  webhook: { url: `${hookUrl}/${path}`, headers: { authorization: `Bearer ${BEARER_SECRET}` } },
});

/** The secrets found in `text`, so that a failure names which one leaked. */
const leaked = (text: string) => SECRETS.filter((s) => text.includes(s));

/** The bytes of a protobuf message as the server sent them, to search for a secret. */
const bytes = (encoded: Uint8Array) => Buffer.from(encoded).toString('latin1');

/** The schedule as the server describes it to a client without the codec: its search attributes, and all of it. */
async function rawSchedule(jobId: string) {
  const raw = await t.client.workflowService.describeSchedule({ namespace: t.namespace, scheduleId: jobId });
  return {
    searchAttributes: bytes(
      temporal.api.common.v1.SearchAttributes.encode(raw.searchAttributes ?? {}).finish(),
    ),
    all: bytes(temporal.api.workflowservice.v1.DescribeScheduleResponse.encode(raw).finish()),
  };
}

/** The listing entry of a schedule (served from visibility), once it carries the job's TflowJob attribute. */
async function rawListing(jobId: string): Promise<string> {
  return waitFor(`the listing entry of ${jobId}`, async () => {
    let token: Uint8Array | undefined;
    do {
      const page = await t.client.workflowService.listSchedules({
        namespace: t.namespace,
        maximumPageSize: 1000,
        ...(token ? { nextPageToken: token } : {}),
      });
      const entry = page.schedules?.find((s) => s.scheduleId === jobId);
      if (entry) {
        if (!entry.searchAttributes?.indexedFields?.TflowJob) return undefined;
        return bytes(temporal.api.schedule.v1.ScheduleListEntry.encode(entry).finish());
      }
      token = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (token);
    return undefined;
  });
}

/** A workflow as the server keeps it: its whole history, and its description (memo, search attributes). */
async function rawWorkflow(workflowId: string): Promise<string> {
  const history = await t.client.workflow.getHandle(workflowId).fetchHistory();
  const described = await t.client.workflowService.describeWorkflowExecution({
    namespace: t.namespace,
    execution: { workflowId },
  });
  return [
    bytes(temporal.api.history.v1.History.encode(history).finish()),
    bytes(temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse.encode(described).finish()),
  ].join('\n');
}

/** The JSON of the record main kept whole in the attribute when it fit: the case the leak needs. */
function recordBytes(alerts: JobAlerts, policies: Record<string, unknown> = {}): number {
  const record = { v: 1, trigger: { every: '1h' }, timezone: 'UTC', policies, alerts };
  return Buffer.byteLength(JSON.stringify(record), 'utf8');
}

describe('webhook secrets of alerts', () => {
  it('are in no search attribute of a job, small record or large, and in no schedule byte with the codec on', async () => {
    const small: JobAlerts = { expectSuccessWithin: '26h', onSilent: slack() };
    const header: JobAlerts = { onLate: withBearer('late'), lateAfter: '5m' };
    const large: JobAlerts = {
      onMissed: withBearer(`missed/${'x'.repeat(200)}`),
      onLate: slack(),
      lateAfter: '5m',
      expectSuccessWithin: '26h',
      onSilent: withBearer('silent'),
    };
    // The first two fit in the attribute whole (as every record that fitted was stored before), the last not.
    expect(recordBytes(small)).toBeLessThanOrEqual(MAX_RECORD_BYTES);
    expect(recordBytes(header)).toBeLessThanOrEqual(MAX_RECORD_BYTES);
    expect(recordBytes(large)).toBeGreaterThan(MAX_RECORD_BYTES);

    const jobs: [string, JobAlerts][] = [
      [t.uid('slack'), small],
      [t.uid('bearer'), header],
      [t.uid('large'), large],
    ];
    for (const [jobId, alerts] of jobs) {
      await scheduler.scheduleInterval(work, { jobId, every: '1h', args: [1], paused: true, ...alerts });
    }
    try {
      for (const [jobId, alerts] of jobs) {
        const raw = await rawSchedule(jobId);
        expect(leaked(raw.searchAttributes), `${jobId}: search attributes`).toEqual([]);
        expect(leaked(raw.all), `${jobId}: the schedule with the codec on`).toEqual([]);
        // The job keeps its alerts exactly (in the encrypted memo), and its listing still works.
        const job = await scheduler.getJob(jobId);
        expect(!job.foreign && job.alerts).toEqual(alerts);
      }
      for (const [jobId] of jobs.slice(0, 2)) {
        expect(leaked(await rawListing(jobId)), `${jobId}: the listing`).toEqual([]);
      }
      const listed = await waitFor('the jobs in listJobs', async () => {
        const all = await scheduler.listJobs({ includeForeign: false });
        const ours = all.filter((j) => jobs.some(([id]) => id === j.id));
        return ours.length === jobs.length ? ours : undefined;
      });
      expect(listed.map((j) => (j.foreign ? undefined : j.pipeline))).toEqual(jobs.map(() => work.name));
      expect(leaked(JSON.stringify(listed))).toEqual([]);

      // modifyJob and pauseJob write the attribute again: still nothing of the targets.
      await scheduler.modifyJob(jobs[0]![0], { onLate: withBearer('late'), lateAfter: '1m', note: 'edited' });
      await scheduler.resumeJob(jobs[1]![0]);
      for (const [jobId] of jobs.slice(0, 2)) {
        expect(leaked((await rawSchedule(jobId)).searchAttributes), `${jobId} after a write`).toEqual([]);
      }
    } finally {
      for (const [jobId] of jobs) await scheduler.removeJob(jobId);
    }
  });

  it('are in clear in no byte of the evaluator, nor of the delivery that sent the dead-man alert with them', async () => {
    const jobId = t.uid('deadman');
    await scheduler.scheduleInterval(work, {
      jobId,
      every: '1h',
      args: [1],
      paused: true,
      expectSuccessWithin: '3s',
      onSilent: withBearer(`deadman/${SLACK_SECRET}`),
    });
    try {
      const post = await waitFor(
        'the silent alert',
        async () => posts.find((p) => p.jobId === jobId && p.kind === 'silent'),
        60_000,
      );
      // The secrets did their job: the webhook got both.
      expect(post.url).toBe(`/deadman/${SLACK_SECRET}`);
      expect(post.headers.authorization).toBe(`Bearer ${BEARER_SECRET}`);
      expect(leaked(await rawWorkflow(alertEvaluatorWorkflowId(watchdogQueue))), 'the evaluator').toEqual([]);
      const deliveries: string[] = [];
      const query = `WorkflowType = '${ALERT_DELIVERY_WORKFLOW_TYPE}' AND TaskQueue = '${watchdogQueue}'`;
      await waitFor('the delivery listed', async () => {
        deliveries.length = 0;
        for await (const wf of t.client.workflow.list({ query })) {
          if (wf.workflowId.endsWith(`:${jobId}`)) deliveries.push(wf.workflowId);
        }
        return deliveries.length > 0 ? true : undefined;
      });
      for (const id of deliveries) expect(leaked(await rawWorkflow(id)), id).toEqual([]);
    } finally {
      await scheduler.removeJob(jobId);
    }
  });

  it('are in clear in no byte of a run that raised an alert with them, nor of its dead letter', async () => {
    const jobId = t.uid('broken');
    await scheduler.scheduleInterval(broken, {
      jobId,
      every: '1h',
      args: [],
      paused: true,
      misfireGraceTime: '2s',
      onMissed: withBearer(`missed/${SLACK_SECRET}`),
      onError: 'work',
    });
    try {
      // A past occurrence, started more than 2 s late: the run skips itself and raises onMissed.
      const to = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 1_000;
      await scheduler.backfillJob(jobId, { from: new Date(to - 3_600_000), to: new Date(to) });
      const missed = await waitFor('the missed alert', async () =>
        posts.find((p) => p.jobId === jobId && p.kind === 'missed'),
      );
      expect(missed.headers.authorization).toBe(`Bearer ${BEARER_SECRET}`);
      // A run now fails for good: its dead letter keeps its input (with the job's alerts).
      await scheduler.triggerJob(jobId);
      const runs = await waitFor('the skipped and the failed run', async () => {
        const history = await scheduler.getHistory(jobId);
        return history.some((r) => r.status === 'failed') && history.some((r) => r.status === 'skipped')
          ? history
          : undefined;
      });
      for (const run of runs) {
        expect(leaked(await rawWorkflow(run.workflowId)), `run ${run.workflowId}`).toEqual([]);
      }
      const failed = runs.find((r) => r.status === 'failed')!;
      const letter = await waitFor('the dead letter', async () => {
        const raw = await rawWorkflow(deadLetterWorkflowId(failed.workflowId)).catch(() => undefined);
        return raw?.includes('recordDeadLetter') ? raw : undefined;
      });
      expect(leaked(letter), 'the dead letter').toEqual([]);
    } finally {
      await scheduler.removeJob(jobId);
    }
  });

  it('left in the attribute by an older version: listings read past them, and the next write removes them', async () => {
    const jobId = t.uid('old-form');
    const alerts: JobAlerts = { expectSuccessWithin: '26h', onSilent: slack() };
    await scheduler.scheduleInterval(work, { jobId, every: '1h', args: [1], paused: true, ...alerts });
    try {
      // What an older version wrote: the whole record, alert targets included, in the attribute.
      const whole = { v: 1, trigger: { every: '1h' }, timezone: 'UTC', policies: {}, alerts };
      await codecClient.schedule.getHandle(jobId).update((d) => ({
        ...d,
        searchAttributes: undefined,
        typedSearchAttributes: new TypedSearchAttributes([
          { key: JOB_SEARCH_ATTRIBUTE, value: JSON.stringify(whole) },
        ]),
      }));
      // A schedule update reaches the schedule's own workflow as a signal: describe shows it once applied.
      await waitFor('the old-form attribute written', async () =>
        leaked((await rawSchedule(jobId)).searchAttributes).includes(SLACK_SECRET) ? true : undefined,
      );
      const listed = await waitFor('the old-form job listed', async () => {
        const job = (await scheduler.listJobs({ includeForeign: false })).find((j) => j.id === jobId);
        return job && !job.foreign && JSON.stringify(job.trigger) === '{"every":"1h"}' ? job : undefined;
      });
      expect(listed).not.toHaveProperty('alerts');
      expect(leaked(JSON.stringify(listed))).toEqual([]);
      // Any write of the job, e.g. `tflow jobs pause`, leaves only the listed fields.
      await scheduler.pauseJob(jobId, 'rewritten');
      expect(leaked((await rawSchedule(jobId)).searchAttributes)).toEqual([]);
      const job = await scheduler.getJob(jobId);
      expect(!job.foreign && job.alerts).toEqual(alerts);
    } finally {
      await scheduler.removeJob(jobId);
    }
  });

  it('do not stop a client without the codec from listing, planning and repairing the other jobs of the namespace', async () => {
    // An encrypted job beside a plain one: a client without the key read "Unknown encoding: binary/encrypted"
    // for the whole listing, so listJobs, plan's prune and doctor's repair failed for every job.
    const secret = t.uid('enc');
    // With alerts to evaluate (encrypted too).
    await scheduler.scheduleInterval(work, {
      jobId: secret,
      every: '1h',
      args: [1],
      paused: true,
      expectSuccessWithin: '26h',
      onSilent: slack(),
    });
    const plain = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
    const plainId = t.uid('plain');
    await plain.scheduleInterval(work, { jobId: plainId, every: '1h', args: [1], paused: true });
    try {
      await waitFor('both jobs in the codec client listing', async () => {
        const ids = (await scheduler.listJobs()).map((j) => j.id);
        return ids.includes(secret) && ids.includes(plainId) ? ids : undefined;
      });
      const listed = await plain.listJobs({ includeForeign: false });
      expect(listed.map((j) => j.id)).toContain(plainId);
      expect(listed.map((j) => j.id)).not.toContain(secret);
      const set = { set: t.uid('set'), pipelines: [work], jobs: [] };
      const planned = await plain.plan(set, { prune: true });
      expect(planned.jobs).toEqual([]);
      const found = await findJobDisagreements(t.client, { settleMs: 0 });
      expect(found.filter((f) => f.jobId === secret || f.jobId === plainId)).toEqual([]);
    } finally {
      await scheduler.removeJob(secret);
      await plain.removeJob(plainId);
    }
  });

  it('are in no search attribute without the codec either (where the memo shows them: the check can fail)', async () => {
    const plain = new PipelineScheduler(t.client, {
      taskQueue: t.taskQueue,
      watchdogTaskQueue: watchdogQueue,
    });
    const jobId = t.uid('plain');
    await plain.scheduleInterval(work, {
      jobId,
      every: '1h',
      args: [1],
      paused: true,
      onLate: withBearer('late'),
      lateAfter: '5m',
    });
    try {
      const raw = await rawSchedule(jobId);
      expect(leaked(raw.searchAttributes)).toEqual([]);
      expect(leaked(await rawListing(jobId))).toEqual([]);
      // Without a codec the memo is plaintext: the secret is in the schedule, where the check finds it.
      expect(leaked(raw.all)).toEqual([BEARER_SECRET]);
    } finally {
      await plain.removeJob(jobId);
    }
  });
});

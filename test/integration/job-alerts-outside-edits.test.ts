import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { AesGcmPayloadCodec, codecDataConverter, serveCodec } from '../../src/codec';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { JobNotFoundError } from '../../src/client/errors';
import { findJobAlertProblems } from '../../src/client/jobs/job-alert-health';
import { createWatchdogWorker } from '../../src/worker/watchdog-worker';
import { AlertMetrics } from '../../src/worker/alert-metrics';
import type { JobAlertEvent } from '../../src/workflows/alert-types';
import { PIPELINE_WORKFLOW_TYPE, type PipelineRunInput } from '../../src/workflows/run-types';
import { alertEvaluatorWorkflowId } from '../../src/workflows/alerts/evaluator-defs';
import { ensureAlertEvaluator } from '../../src/client/jobs/alert-evaluator';
import { evaluatorHeartbeat } from '../helpers/alert-evaluator';
import { ALERTS_SEARCH_ATTRIBUTE } from '../../src/workflows/search-attributes';
import { startAlertHook, type AlertHook } from '../helpers/alert-hook';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import { cliInputOf, cliScheduleUpdate, temporalCli } from '../helpers/temporal-cli';

/*
 * A job's alerts through the other doors and edges users meet: an edit made with the real `temporal`
 * CLI (which replaces the schedule's action and its memo), a dead-man switch added to a job that has run
 * for a while or to an id created again (the clock starts at the switch), and a watchdog whose reads of
 * the job fail (a worker without the codec key) for longer than its old ten attempts allowed.
 */

let hook: AlertHook;
let hookUrl: string;
const postsOf = (jobId: string, kind?: JobAlertEvent['kind']) => hook.postsOf(jobId, kind);

/** Runs of `hold` wait until the gate opens. */
let openGate: () => void = () => undefined;
const gate = new Promise<void>((resolve) => (openGate = resolve));

const steps = {
  async work(x: number) {
    return x + 1;
  },
  async hold(x: number) {
    await gate;
    return x;
  },
};
const work = pipeline('outside-edits-work', { steps }).step('work');
// A key id of this file's own: other files' codecs name theirs `k1`, and a key id met with other bytes
// does not decrypt (their listings would meet this file's jobs).
const codec = new AesGcmPayloadCodec({ keys: { 'outside-edits': randomBytes(32) } });

let t: TestContext;
let watchdogQueue: string;
/** A scheduler whose jobs no worker runs (a dead-man switch then pages). */
let idle: PipelineScheduler;
/** A scheduler whose jobs the test's worker runs. */
let live: PipelineScheduler;
let idleQueue: string;
const workers: { worker: Worker; done: Promise<void> }[] = [];

async function startWatchdogWorker(
  opts: { codec?: AesGcmPayloadCodec; taskQueue?: string; metrics?: AlertMetrics } = {},
) {
  const worker = await createWatchdogWorker({
    connection: t.nativeConnection,
    namespace: t.namespace,
    taskQueue: opts.taskQueue ?? watchdogQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    alerts: {
      pageOnCall: (event) => {
        hook.received.push(event);
      },
    },
    ...(opts.codec ? { codec: opts.codec } : {}),
    ...(opts.metrics ? { onAlertEvaluation: opts.metrics.recordEvaluation } : {}),
    evaluator: { waveMs: 1_000, heartbeatTimeoutMs: 3_000 },
  });
  const running = { worker, done: worker.run() };
  workers.push(running);
  return running;
}

/** `temporal schedule update` in the form its help gives, on the idle queue (see cliScheduleUpdate). */
const cliUpdate = (client: Client, jobId: string, extra: string[]) =>
  cliScheduleUpdate(client, t.namespace, jobId, idleQueue, extra);
const temporal = (args: string[]) => temporalCli(t.namespace, args);
const inputOf = cliInputOf;

/** Posts refused so far per job, for the jobs whose webhook path is `/down5` (refused 5 times, 503). */
const refusedPosts = new Map<string, number>();

beforeAll(async () => {
  hook = await startAlertHook((req, event) => {
    if (req.url !== '/down5') return undefined;
    const refused = refusedPosts.get(event.jobId) ?? 0;
    if (refused >= 5) return undefined;
    refusedPosts.set(event.jobId, refused + 1);
    return 503;
  });
  hookUrl = hook.url;
  t = await connectTest('outside-edits');
  watchdogQueue = `${t.taskQueue}-watchdog`;
  idleQueue = `${t.taskQueue}-nobody`;
  await t.startWorker(steps);
  await startWatchdogWorker();
  idle = new PipelineScheduler(t.client, { taskQueue: idleQueue, watchdogTaskQueue: watchdogQueue });
  live = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps, watchdogTaskQueue: watchdogQueue });
});
afterAll(async () => {
  openGate();
  for (const { worker, done } of workers) {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await done;
  }
  await t?.close();
  await hook?.close();
});

describe('an edit made with `temporal schedule update`', () => {
  it("keeps the job's dead-man switch: getJob shows it, and it pages when no run completes", async () => {
    const jobId = t.uid('cli-edited');
    // An alert activity of the watchdog worker: no secret, so kept whole without a codec too.
    const alerts = { expectSuccessWithin: '8s', onSilent: 'pageOnCall' };
    await idle.schedule(work, { jobId, cron: '0 3 * * *', timezone: 'Europe/Paris', args: [1], ...alerts });
    try {
      // What the CLI's help lists for an update: no memo, no schedule search attributes.
      await cliUpdate(t.client, jobId, ['--time-zone', 'Europe/Paris', '--cron', '0 4 * * *']);
      const edited = await waitFor('the CLI edit applied', async () => {
        const job = await idle.getJob(jobId);
        return !job.foreign && job.editedOutside ? job : undefined;
      });
      expect(!edited.foreign && edited.alerts).toEqual(alerts);
      expect(edited).not.toHaveProperty('alertsLost');
      const [silent] = await waitFor('the silent page', async () => {
        const posts = postsOf(jobId, 'silent');
        return posts.length > 0 ? posts : undefined;
      });
      expect(silent).toMatchObject({ kind: 'silent', jobId, expectSuccessWithinMs: 8_000 });
      // A later write through temporal-flow keeps the alerts (and writes the record back to the memo).
      await idle.modifyJob(jobId, { note: 'after the CLI edit' });
      const after = await idle.getJob(jobId);
      expect(!after.foreign && after.alerts).toEqual(alerts);
      expect(!after.foreign && after.note).toBe('after the CLI edit');
    } finally {
      await idle.removeJob(jobId);
    }
  });

  it('with a codec: the alerts survive the edit, and their copy on the schedule is encrypted', async () => {
    const codecClient = new Client({
      connection: t.connection,
      namespace: t.namespace,
      dataConverter: codecDataConverter(codec),
    });
    const secret = `Bearer ${randomBytes(8).toString('hex')}`;
    const scheduler = new PipelineScheduler(codecClient, {
      taskQueue: idleQueue,
      watchdogTaskQueue: watchdogQueue,
    });
    const jobId = t.uid('cli-edited-codec');
    const alerts = {
      onMissed: { webhook: { url: `${hookUrl}/missed`, headers: { authorization: secret } } },
    };
    await scheduler.scheduleInterval(work, { jobId, every: '1h', args: [1], paused: true, ...alerts });
    // The CLI reads and writes an encrypted schedule through a codec server (ours), as users run it.
    const token = randomBytes(16).toString('hex');
    const server = await serveCodec({ codec, token });
    try {
      await cliUpdate(codecClient, jobId, [
        '--codec-endpoint',
        server.url,
        '--codec-auth',
        `Bearer ${token}`,
        '--interval',
        '2h',
        '--paused',
      ]);
      const edited = await waitFor('the CLI edit applied', async () => {
        const job = await scheduler.getJob(jobId);
        return !job.foreign && job.editedOutside ? job : undefined;
      });
      expect(!edited.foreign && edited.alerts).toEqual(alerts);
      // Search attributes are never decoded by a codec: the attribute holds no byte of the header in clear.
      const raw = await codecClient.schedule.getHandle(jobId).describe();
      const text = raw.typedSearchAttributes.get(ALERTS_SEARCH_ATTRIBUTE);
      expect(typeof text).toBe('string');
      expect(Buffer.from(String(text), 'base64').toString('latin1')).not.toContain(secret);
      expect(Buffer.from(String(text), 'base64').toString('latin1')).toContain('binary/encrypted');
    } finally {
      await server.close();
      await scheduler.removeJob(jobId);
    }
  });

  it("without a codec: a run alert's webhook comes back from the input the edit kept (checked against its hash), and a later write keeps it", async () => {
    const kept = t.uid('cli-edited-kept');
    const swapped = t.uid('cli-edited-swapped');
    const secret = `Bearer ${randomBytes(8).toString('hex')}`;
    const onMissed = { webhook: { url: `${hookUrl}/missed`, headers: { authorization: secret } } };
    const onLate = { webhook: { url: `${hookUrl}/late`, timeout: '5s' } };
    for (const jobId of [kept, swapped])
      await idle.scheduleInterval(work, {
        jobId,
        every: '1h',
        args: [1],
        paused: true,
        onMissed,
        onLate,
        lateAfter: '1m',
      });
    try {
      // The help's form, with the input read back (what `temporal schedule describe` shows).
      await cliUpdate(t.client, kept, ['--interval', '2h', '--paused']);
      // The same edit with an input whose onMissed webhook is another one: it does not match the hash kept.
      const input = JSON.parse(await inputOf(t.client, swapped)) as PipelineRunInput;
      const other = {
        ...input,
        job: {
          ...input.job!,
          alerts: {
            ...input.job!.alerts,
            onMissed: { webhook: { url: `${hookUrl}/elsewhere`, timeoutMs: 10_000 } },
          },
        },
      };
      await temporal([
        'schedule',
        'update',
        '--schedule-id',
        swapped,
        '--workflow-id',
        `${swapped}-run`,
        '--task-queue',
        idleQueue,
        '--type',
        PIPELINE_WORKFLOW_TYPE,
        '--input',
        JSON.stringify(other),
        '--interval',
        '2h',
        '--paused',
      ]);
      const edited = await waitFor('both CLI edits applied', async () => {
        const jobs = await Promise.all([idle.getJob(kept), idle.getJob(swapped)]);
        return jobs.every((j) => !j.foreign && j.editedOutside) ? jobs : undefined;
      });
      const [k, s] = edited.map((j) => (j.foreign ? undefined : j));
      expect(k?.alerts).toEqual({ onMissed, onLate, lateAfter: '1m' });
      expect(k).not.toHaveProperty('alertsLost');
      // Never a guess: the input's other webhook is not taken for the redacted one.
      expect(s?.alertsLost).toEqual(['onMissed']);
      expect(s?.alerts).toEqual({ onLate, lateAfter: '1m' });
      // A write of ours after the edit keeps the recovered targets in the runs' input.
      await idle.modifyJob(kept, { note: 'after the CLI edit' });
      const after = await t.client.schedule.getHandle(kept).describe();
      const job = (
        after.action.type === 'startWorkflow' ? after.action.args?.[0] : undefined
      ) as PipelineRunInput;
      expect(job.job?.alerts?.onMissed).toEqual({ webhook: { ...onMissed.webhook, timeoutMs: 10_000 } });
      expect(job.job?.alerts?.onLate).toEqual({ webhook: { url: onLate.webhook.url, timeoutMs: 5_000 } });
      const again = await idle.getJob(kept);
      expect(!again.foreign && again.alerts).toEqual({ onMissed, onLate, lateAfter: '1m' });
    } finally {
      await idle.removeJob(kept);
      await idle.removeJob(swapped);
    }
  });

  it('without a codec: a webhook target is lost (kept only redacted), and that is said, never silent', async () => {
    const jobId = t.uid('cli-edited-plain');
    const secret = `Bearer ${randomBytes(8).toString('hex')}`;
    await idle.scheduleInterval(work, {
      jobId,
      every: '1h',
      args: [1],
      paused: true,
      onMissed: 'page',
      expectSuccessWithin: '1h',
      onSilent: { webhook: { url: `${hookUrl}/silent`, headers: { authorization: secret } } },
    });
    try {
      const raw = await t.client.schedule.getHandle(jobId).describe();
      const text = String(raw.typedSearchAttributes.get(ALERTS_SEARCH_ATTRIBUTE));
      expect(Buffer.from(text, 'base64').toString('utf8')).not.toContain(secret);
      await cliUpdate(t.client, jobId, ['--interval', '2h', '--paused']);
      const edited = await waitFor('the CLI edit applied', async () => {
        const job = await idle.getJob(jobId);
        return !job.foreign && job.editedOutside ? job : undefined;
      });
      expect(!edited.foreign && edited.alertsLost).toEqual(['onSilent']);
      // The activity target is no secret: kept.
      expect(!edited.foreign && edited.alerts).toEqual({ onMissed: 'page' });
      const problems = await findJobAlertProblems(t.client);
      expect(problems.filter((p) => p.jobId === jobId)).toEqual([
        expect.objectContaining({
          kind: 'alerts-lost',
          summary: expect.stringContaining('onSilent') as unknown,
        }),
      ]);
      // A write that does not set the target again keeps saying it is lost; one that sets it ends that.
      await idle.modifyJob(jobId, { note: 'still lost' });
      const still = await idle.getJob(jobId);
      expect(!still.foreign && still.alertsLost).toEqual(['onSilent']);
      await idle.modifyJob(jobId, {
        expectSuccessWithin: '1h',
        onSilent: { webhook: { url: `${hookUrl}/silent` } },
      });
      const fixed = await idle.getJob(jobId);
      expect(fixed).not.toHaveProperty('alertsLost');
      expect(!fixed.foreign && fixed.alerts?.onSilent).toEqual({ webhook: { url: `${hookUrl}/silent` } });
    } finally {
      await idle.removeJob(jobId);
    }
  });
});

describe('the dead-man clock starts when the switch is set', () => {
  /** Completed runs of a job so far (its schedule's own count of actions taken). */
  async function actionsTaken(jobId: string): Promise<number> {
    const job = await live.getJob(jobId);
    return job.foreign ? 0 : job.counters.actionsTaken;
  }

  it('a switch added by modifyJob to a job that ran for longer than it pages no false silent', async () => {
    const jobId = t.uid('added-later');
    await live.scheduleInterval(work, {
      jobId,
      every: '2s',
      args: [1],
      onMissed: { webhook: { url: hookUrl } },
    });
    try {
      // Older than the switch will be, every run succeeding.
      await waitFor('the job older than 8 s', async () =>
        (await actionsTaken(jobId)) >= 4 ? true : undefined,
      );
      const switched = Date.now();
      await live.modifyJob(jobId, { expectSuccessWithin: '6s', onSilent: { webhook: { url: hookUrl } } });
      const taken = await actionsTaken(jobId);
      // Past two whole expectSuccessWithin periods after the switch, runs still succeeding: no page.
      await waitFor(
        '6 more runs',
        async () => ((await actionsTaken(jobId)) >= taken + 6 ? true : undefined),
        30_000,
      );
      // The clock starts at the switch: no page counts from before it. (On a loaded machine a run can
      // take longer than 6 s and page for real; such a page counts from a success after the switch.)
      for (const silent of postsOf(jobId, 'silent')) {
        expect(Date.parse(silent.lastSuccessAt!)).toBeGreaterThanOrEqual(switched);
      }
    } finally {
      await live.removeJob(jobId);
    }
  });

  it('an id deleted with the CLI and scheduled again starts a fresh clock', async () => {
    const jobId = t.uid('recreated');
    const alerts = { expectSuccessWithin: '6s', onSilent: { webhook: { url: hookUrl } } };
    // Paused: no run ever completes, so each job's switch pages 6 s after its own start, never sooner.
    await live.scheduleInterval(work, { jobId, every: '1h', args: [1], paused: true, ...alerts });
    const created = Date.now();
    try {
      await waitFor('the first job 4 s old', async () => (Date.now() - created >= 4_000 ? true : undefined));
      // Deleted through the other door: nothing tells the evaluator, which holds the old job's clock; the
      // id made again is read again (its alerts were written), and its clock must be the new job's.
      await temporal(['schedule', 'delete', '--schedule-id', jobId]);
      const recreated = Date.now();
      await live.scheduleInterval(work, { jobId, every: '1h', args: [1], paused: true, ...alerts });
      const [silent] = await waitFor('the new job silent', async () => {
        const posts = postsOf(jobId, 'silent');
        return posts.length > 0 ? posts : undefined;
      });
      expect(Date.parse(silent!.lastSuccessAt!)).toBeGreaterThanOrEqual(recreated);
      expect(Date.parse(silent!.at)).toBeGreaterThanOrEqual(recreated + 6_000);
      expect(postsOf(jobId, 'silent')).toHaveLength(1);
    } finally {
      await live.removeJob(jobId);
    }
  });
});

describe('an evaluator whose reads of a job fail', () => {
  it('keeps reading (no attempt limit), says so, and alerts once a worker with the key reads the job', async () => {
    const queue = `${t.taskQueue}-codec-alerts`;
    const metrics = new AlertMetrics();
    // The alert worker without the codec key: every read of the encrypted job fails.
    const keyless = await startWatchdogWorker({ taskQueue: queue, metrics });
    const codecClient = new Client({
      connection: t.connection,
      namespace: t.namespace,
      dataConverter: codecDataConverter(codec),
    });
    const plain = new PipelineScheduler(t.client, { taskQueue: idleQueue, watchdogTaskQueue: queue });
    const scheduler = new PipelineScheduler(codecClient, { taskQueue: idleQueue, watchdogTaskQueue: queue });
    const jobId = t.uid('keyless');
    // Written before the codec was rolled out, then once with it.
    await plain.scheduleInterval(work, {
      jobId,
      every: '1h',
      args: [1],
      expectSuccessWithin: '5s',
      onSilent: { webhook: { url: hookUrl } },
    });
    await scheduler.modifyJob(jobId, { note: 'written with the codec' });
    try {
      // Retried at every wave for as long as it fails (no maximum), each failure counted.
      await waitFor(
        'the third failed read',
        async () => ((await evaluatorHeartbeat(t.client, queue))?.failing?.[jobId] ?? 0) >= 3 || undefined,
        30_000,
      );
      expect(await metrics.registry.getSingleMetricAsString('tflow_job_alerts_unevaluable')).toContain(
        `tflow_job_alerts_unevaluable{job="${jobId}"} 1`,
      );
      const problems = await findJobAlertProblems(codecClient);
      expect(problems.filter((p) => p.jobId === jobId).map((p) => p.kind)).toEqual(['alerts-unevaluable']);
      expect(problems.find((p) => p.jobId === jobId)?.summary).toContain('codec key');
      expect(postsOf(jobId)).toEqual([]);

      // The key arrives: the next read succeeds, and the job (which never ran) is reported silent.
      keyless.worker.shutdown();
      await keyless.done;
      await startWatchdogWorker({ taskQueue: queue, codec, metrics });
      await waitFor(
        'the silent page once the key is there',
        async () => (postsOf(jobId, 'silent').length > 0 ? true : undefined),
        90_000,
      );
      expect(await metrics.registry.getSingleMetricAsString('tflow_job_alerts_unevaluable')).toContain(
        `tflow_job_alerts_unevaluable{job="${jobId}"} 0`,
      );
      expect(postsOf(jobId, 'silent')).toHaveLength(1);
    } finally {
      await scheduler.removeJob(jobId);
    }
  }, 150_000);
});

describe('an evaluator its worker cannot run', () => {
  it('is named by doctor: its workflow tasks fail (its input is encrypted under a key the worker lacks)', async () => {
    const queue = `${t.taskQueue}-keyless-tasks`;
    const codecClient = new Client({
      connection: t.connection,
      namespace: t.namespace,
      dataConverter: codecDataConverter(codec),
    });
    // Started by a scheduler with the codec (its input encrypted) before any alert worker of the queue.
    await ensureAlertEvaluator(codecClient, queue);
    await startWatchdogWorker({ taskQueue: queue });
    const evaluatorId = alertEvaluatorWorkflowId(queue);
    try {
      const found = await waitFor(
        'doctor to name the evaluator',
        async () => {
          const problems = (await findJobAlertProblems(codecClient)).filter((p) => p.jobId === evaluatorId);
          return problems.length > 0 ? problems : undefined;
        },
        120_000,
      );
      expect(found).toEqual([
        expect.objectContaining({
          kind: 'alerts-unevaluable',
          summary: expect.stringContaining('workflow tasks in a row') as unknown,
        }),
      ]);
    } finally {
      // Its worker cannot run it, so it cannot end itself: it would outlive the test.
      await t.client.workflow.getHandle(evaluatorId).terminate('test over');
    }
  }, 150_000);
});

describe('a job is written by one call or not at all', () => {
  it('is not created when its alert evaluator cannot be made sure of, and nothing is left to roll back', async () => {
    const refusing = new Client({
      connection: t.connection,
      namespace: t.namespace,
      interceptors: {
        workflow: [
          {
            async start() {
              throw new Error('evaluator start refused');
            },
          },
        ],
      },
    });
    const scheduler = new PipelineScheduler(refusing, {
      taskQueue: idleQueue,
      watchdogTaskQueue: `${watchdogQueue}-refused`,
    });
    const jobId = t.uid('refused');
    const alerts = { expectSuccessWithin: '1h', onSilent: 'pageOnCall' };
    await expect(
      scheduler.scheduleInterval(work, { jobId, every: '1h', args: [1], paused: true, ...alerts }),
    ).rejects.toThrow('evaluator start refused');
    await expect(idle.getJob(jobId)).rejects.toBeInstanceOf(JobNotFoundError);
    // A job with no alert to evaluate needs no evaluator: written in its one call.
    await scheduler.scheduleInterval(work, { jobId, every: '1h', args: [1], paused: true });
    await idle.removeJob(jobId);
  });
});

describe("the evaluator's deliveries", () => {
  it('outlast a webhook down for longer than a run would wait (5 refusals): the page still comes, once', async () => {
    const jobId = t.uid('hook-down');
    await idle.scheduleInterval(work, {
      jobId,
      every: '1h',
      args: [1],
      paused: true,
      expectSuccessWithin: '2s',
      onSilent: { webhook: { url: `${hookUrl}/down5` } },
    });
    try {
      const [silent] = await waitFor(
        'the silent page past 5 refusals',
        async () => {
          const posts = postsOf(jobId, 'silent');
          return posts.length > 0 ? posts : undefined;
        },
        90_000,
      );
      expect(refusedPosts.get(jobId)).toBe(5);
      expect(silent).toMatchObject({ kind: 'silent', jobId });
      expect(postsOf(jobId, 'silent')).toHaveLength(1);
    } finally {
      await idle.removeJob(jobId);
    }
  }, 120_000);
});

describe('runs edited outside temporal-flow', () => {
  it('still count: a run the server saw close keeps the switch quiet, whatever its input says', async () => {
    const jobId = t.uid('untold');
    await live.scheduleInterval(work, {
      jobId,
      every: '2s',
      args: [1],
      expectSuccessWithin: '5s',
      onSilent: { webhook: { url: hookUrl } },
    });
    try {
      // An edit made outside temporal-flow that drops the runs' alert flag from their input (what made
      // them report to the per-job watchdog of the release before): the evaluator reads completed runs
      // from visibility, so nothing the run does or says is needed.
      await t.client.schedule.getHandle(jobId).update((d) => {
        const input = d.action.args![0] as PipelineRunInput;
        const { watchdog: _w, ...alerts } = input.job!.alerts!;
        return {
          ...d,
          action: { ...d.action, args: [{ ...input, job: { ...input.job!, alerts } }] },
        };
      });
      const edited = Date.now();
      await waitFor(
        'runs completing for 12 s after the edit',
        async () => {
          const job = await live.getJob(jobId);
          const recent = job.foreign
            ? []
            : job.recentRuns.filter((r) => r.startedAt.getTime() > edited + 1_000);
          return recent.length >= 5 ? true : undefined;
        },
        40_000,
      );
      expect(postsOf(jobId, 'silent')).toEqual([]);
    } finally {
      await live.removeJob(jobId);
    }
  });
});

describe('a job encrypted under another key of the same id', () => {
  it('does not stop listing or doctor for the other jobs: it reads as not one of ours', async () => {
    const clientWith = (bytes: Buffer) =>
      new Client({
        connection: t.connection,
        namespace: t.namespace,
        dataConverter: codecDataConverter(new AesGcmPayloadCodec({ keys: { shared: bytes } })),
      });
    const mine = clientWith(randomBytes(32));
    const theirs = clientWith(randomBytes(32));
    const theirJob = t.uid('other-env');
    const myJob = t.uid('this-env');
    const them = new PipelineScheduler(theirs, { taskQueue: idleQueue, watchdogTaskQueue: watchdogQueue });
    const us = new PipelineScheduler(mine, { taskQueue: idleQueue, watchdogTaskQueue: watchdogQueue });
    await them.scheduleInterval(work, { jobId: theirJob, every: '1h', args: [1], paused: true });
    await us.scheduleInterval(work, { jobId: myJob, every: '1h', args: [1], paused: true });
    try {
      const listed = await waitFor('both jobs listed', async () => {
        const all = await us.listJobs();
        return all.some((j) => j.id === theirJob) && all.some((j) => j.id === myJob) ? all : undefined;
      });
      expect(listed.find((j) => j.id === myJob)?.foreign).toBe(false);
      // Its memo is another environment's: it reads as not one of ours, and is left alone.
      expect(listed.find((j) => j.id === theirJob)?.foreign).toBe(true);
      const problems = await findJobAlertProblems(mine);
      expect(problems.filter((p) => p.jobId === theirJob || p.jobId === myJob)).toEqual([]);
    } finally {
      await them.removeJob(theirJob);
      await us.removeJob(myJob);
    }
  });
});

describe('missed for an overlap skip of a trigger', () => {
  it('is raised within a minute, not after the next nominal time', async () => {
    const jobId = t.uid('trigger-skip');
    // Paused and hourly: no nominal time comes during the test, and the evaluator's next read of the
    // counts would be a day away.
    await live.scheduleInterval(pipeline('outside-edits-hold', { steps }).step('hold'), {
      jobId,
      every: '1h',
      args: [1],
      paused: true,
      onMissed: { webhook: { url: `${hookUrl}/missed` } },
    });
    try {
      await waitFor('the evaluator to read the job', async () =>
        ((await evaluatorHeartbeat(t.client, watchdogQueue))?.jobs ?? 0) > 0 ? true : undefined,
      );
      await live.triggerJob(jobId);
      await waitFor('the first run holding', async () => {
        const job = await live.getJob(jobId);
        return !job.foreign && job.counters.running === 1 ? true : undefined;
      });
      const sent = Date.now();
      // The job's overlap policy skips this one while the first holds: the server counts it at once.
      await live.triggerJob(jobId);
      const [missed] = await waitFor(
        'the missed alert',
        async () => {
          const posts = postsOf(jobId, 'missed');
          return posts.length > 0 ? posts : undefined;
        },
        60_000,
      );
      expect(missed).toMatchObject({ kind: 'missed', reason: 'overlap', count: 1 });
      expect(Date.parse(missed!.at) - sent).toBeLessThan(60_000);
    } finally {
      await live.removeJob(jobId);
    }
  });
});

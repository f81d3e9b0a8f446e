import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ScheduleDescription,
} from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { JobConflictError, JobNotFoundError } from '../../src/client/errors';
import { EDIT_ATTEMPTS, updateJob } from '../../src/client/jobs/store/send-update';
import { finishedUpdate } from '../../src/client/jobs/store/build-updates';
import type { ScheduledJobDescription } from '../../src/client/jobs/job-types';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * Every edit of a job goes through UpdateSchedule with the conflict token of the description it was computed
 * from. Without it (ScheduleHandle.update() sends none), ten edits fired at once lost most of themselves
 * silently. Here: each edit is either visible afterwards or its call threw JobConflictError, never lost.
 */

let t: TestContext;
let scheduler: PipelineScheduler;
const p = pipeline('concurrent-edits').step('noop');

beforeAll(async () => {
  t = await connectTest('concurrent-edits');
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue });
});
afterAll(async () => t?.close());

async function ours(s: PipelineScheduler, jobId: string): Promise<ScheduledJobDescription> {
  const job = await s.getJob(jobId);
  if (job.foreign) throw new Error(`${jobId} is foreign`);
  return job;
}

/** Ten edits of distinct things, each with the check that it is visible on the job. */
const EDITS: {
  name: string;
  apply: (id: string) => Promise<void>;
  visible: (j: ScheduledJobDescription) => boolean;
}[] = [
  {
    name: 'cron',
    apply: (id) => scheduler.rescheduleJob(id, { cron: '0 3 * * *' }),
    visible: (j) => 'cron' in j.trigger && j.trigger.cron === '0 3 * * *',
  },
  {
    name: 'args',
    apply: (id) => scheduler.modifyJob(id, { args: ['edited'] }),
    visible: (j) => JSON.stringify(j.args) === '["edited"]',
  },
  {
    name: 'note',
    apply: (id) => scheduler.modifyJob(id, { note: 'edited note' }),
    visible: (j) => j.note === 'edited note',
  },
  {
    name: 'misfireGraceTime',
    apply: (id) => scheduler.modifyJob(id, { misfireGraceTime: '30s' }),
    visible: (j) => j.policies.misfireGraceTime === '30s',
  },
  {
    name: 'maxInstances',
    apply: (id) => scheduler.modifyJob(id, { maxInstances: 3 }),
    visible: (j) => j.policies.maxInstances === 3,
  },
  {
    name: 'jitter',
    apply: (id) => scheduler.modifyJob(id, { jitter: '5s' }),
    visible: (j) => j.policies.jitter === '5s',
  },
  {
    name: 'pauseOnFailure',
    apply: (id) => scheduler.modifyJob(id, { pauseOnFailure: true }),
    visible: (j) => j.policies.pauseOnFailure === true,
  },
  {
    name: 'onError',
    apply: (id) => scheduler.modifyJob(id, { onError: 'notifyOps' }),
    visible: (j) => j.onError === 'notifyOps',
  },
  {
    name: 'endAt',
    apply: (id) => scheduler.modifyJob(id, { endAt: '2099-01-01T00:00:00.000Z' }),
    visible: (j) => j.policies.endAt === '2099-01-01T00:00:00.000Z',
  },
  {
    name: 'catchupWindow',
    apply: (id) => scheduler.modifyJob(id, { catchupWindow: '2m' }),
    visible: (j) => j.policies.catchupWindow === '2m',
  },
];

describe('concurrent edits of one job', () => {
  it('10 edits of distinct fields at once, 20 times: each one visible or JobConflictError, none lost', async () => {
    const TRIALS = 20;
    let landed = 0;
    let conflicts = 0;
    const lost: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const jobId = await scheduler.schedule(p, { jobId: t.uid('edits'), cron: '0 2 * * *', paused: true });
      const outcomes = await Promise.allSettled(EDITS.map((e) => e.apply(jobId)));
      const job = await ours(scheduler, jobId);
      outcomes.forEach((o, i) => {
        const edit = EDITS[i]!;
        if (o.status === 'rejected') {
          // Any other failure is a bug: let it fail the test with its own message.
          if (!(o.reason instanceof JobConflictError)) throw o.reason;
          conflicts++;
          expect(edit.visible(job)).toBe(false);
        } else if (edit.visible(job)) landed++;
        else lost.push(`trial ${trial}: ${edit.name}`);
      });
      // What the server keeps agrees with the job as read back: the edits really are on the schedule.
      const d = await t.client.schedule.getHandle(jobId).describe();
      expect(job.editedOutside).toBe(false);
      expect(job.paused).toBe(true);
      if (EDITS[0]!.visible(job))
        expect(d.spec.calendars?.[0]?.hour).toEqual([{ start: 3, end: 3, step: 1 }]);
      if (EDITS[4]!.visible(job)) expect(d.policies.overlap).toBe('ALLOW_ALL');
      if (EDITS[9]!.visible(job)) expect(d.policies.catchupWindow).toBe(120_000);
      await scheduler.removeJob(jobId);
    }
    console.info(
      `concurrent edits: ${TRIALS} trials x ${EDITS.length} edits: ${landed} landed, ${conflicts} JobConflictError, ${lost.length} lost`,
    );
    expect(lost).toEqual([]);
    expect(landed + conflicts).toBe(TRIALS * EDITS.length);
  }, 300_000);

  it('pause and resume race other edits without undoing them', async () => {
    const jobId = await scheduler.schedule(p, { jobId: t.uid('pause-race'), cron: '0 2 * * *' });
    await Promise.all([
      scheduler.pauseJob(jobId, 'maintenance'),
      scheduler.modifyJob(jobId, { args: ['a'] }),
      scheduler.modifyJob(jobId, { maxInstances: 2 }),
      scheduler.rescheduleJob(jobId, { every: '1h' }),
    ]);
    expect(await ours(scheduler, jobId)).toMatchObject({
      paused: true,
      note: 'maintenance',
      args: ['a'],
      policies: { maxInstances: 2 },
      trigger: { every: '1h' },
    });
    await scheduler.removeJob(jobId);
  });
});

/**
 * A gRPC interceptor that runs `before` ahead of each UpdateSchedule this connection sends: it makes an
 * outside edit land exactly between our describe and our update, every time, on the real server.
 */
function beforeEachUpdate(before: () => Promise<void>, calls: { n: number }): Interceptor {
  return (options, nextCall) => {
    if (!options.method_definition.path.endsWith('/UpdateSchedule')) {
      return new InterceptingCall(nextCall(options));
    }
    calls.n++;
    let sent: Promise<void> = Promise.resolve();
    return new InterceptingCall(nextCall(options), {
      sendMessage(message, next) {
        sent = before().then(() => next(message));
      },
      halfClose(next) {
        void sent.then(() => next());
      },
    });
  };
}

/**
 * Waits until the server has applied an outside update. Needed because Temporal's workflow-based scheduler
 * keeps only the last of the update signals that reach it together (its sleep() drains every pending
 * signal into one slot): an outside update followed at once by ours would be dropped by the server itself,
 * whatever the tokens say. The race tested here is the one tokens are for: an update applied between our
 * read and our write.
 */
async function outsideApplied(jobId: string, seen: (d: ScheduleDescription) => boolean): Promise<void> {
  await waitFor('the outside edit to be applied', async () =>
    seen(await t.client.schedule.getHandle(jobId).describe()) ? true : undefined,
  );
}

async function racedScheduler(before: () => Promise<void>, calls: { n: number }) {
  const connection = await Connection.connect({
    address: inject('temporalAddress'),
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), beforeEachUpdate(before, calls)],
  });
  const client = new Client({ connection, namespace: inject('temporalNamespace') });
  return { scheduler: new PipelineScheduler(client, { taskQueue: t.taskQueue }), connection };
}

describe('an edit in the Temporal UI/CLI races ours', () => {
  it('the outside edit is kept, ours is re-applied on top of it', async () => {
    const jobId = await scheduler.schedule(p, { jobId: t.uid('outside'), cron: '0 2 * * *', paused: true });
    let outsideEdits = 0;
    let seenBetween: ScheduledJobDescription | undefined;
    const calls = { n: 0 };
    const raced = await racedScheduler(async () => {
      if (outsideEdits > 0) return;
      outsideEdits++;
      // What the Temporal UI or `temporal schedule update` does: a whole-schedule update without a token.
      await t.client.schedule
        .getHandle(jobId)
        .update((d) => ({ ...d, spec: { cronExpressions: ['0 5 * * *'], timezone: 'UTC' } }));
      seenBetween = await waitFor('the outside edit to be applied', async () => {
        const job = await ours(scheduler, jobId);
        return job.editedOutside ? job : undefined;
      });
    }, calls);
    try {
      await raced.scheduler.modifyJob(jobId, { args: ['ours'] });
    } finally {
      await raced.connection.close();
    }
    // Between the two, the job reads as edited outside, with the outside spec as its trigger.
    expect(seenBetween).toMatchObject({
      editedOutside: true,
      trigger: { cron: '0 5 * * *', timezone: 'UTC' },
      givenTrigger: { cron: '0 2 * * *' },
    });
    // Our first update was computed before the outside edit: the server dropped it, we re-applied.
    expect(calls.n).toBe(2);
    // The outside spec stands (modifyJob never changes when; it adopts an outside spec as the trigger).
    const after = await ours(scheduler, jobId);
    expect(after).toMatchObject({
      args: ['ours'],
      editedOutside: false,
      trigger: { cron: '0 5 * * *', timezone: 'UTC' },
    });
    expect(after.givenTrigger).toBeUndefined();
    await scheduler.removeJob(jobId);
  });

  it('when an outside edit wins every attempt, JobConflictError and nothing of ours is written', async () => {
    const jobId = await scheduler.schedule(p, { jobId: t.uid('always'), cron: '0 2 * * *', paused: true });
    let outsideEdits = 0;
    const calls = { n: 0 };
    const raced = await racedScheduler(async () => {
      outsideEdits++;
      const note = `outside ${outsideEdits}`;
      await t.client.schedule.getHandle(jobId).update((d) => ({ ...d, state: { ...d.state, note } }));
      await outsideApplied(jobId, (d) => d.state.note === note);
    }, calls);
    let error: unknown;
    try {
      await raced.scheduler.modifyJob(jobId, { args: ['ours'] });
    } catch (err) {
      error = err;
    } finally {
      await raced.connection.close();
    }
    expect(error).toBeInstanceOf(JobConflictError);
    expect(error).toMatchObject({ code: 'JOB_CONFLICT', jobId, attempts: EDIT_ATTEMPTS });
    expect((error as Error).message).toBe(
      `job "${jobId}" was changed by someone else during each of ${EDIT_ATTEMPTS} attempts to edit it, so this edit was not applied: retry it (getJob() shows the job as it is now)`,
    );
    expect(calls.n).toBe(EDIT_ATTEMPTS);
    expect(await ours(scheduler, jobId)).toMatchObject({ args: [], note: `outside ${EDIT_ATTEMPTS}` });
    await scheduler.removeJob(jobId);
  });

  it("an edit racing a one-off's clean-up is refused, never deleted unseen with the job", async () => {
    const jobId = await scheduler.scheduleAt(p, {
      jobId: t.uid('finishing'),
      runAt: new Date(Date.now() + 3_600_000),
    });
    const calls = { n: 0 };
    const raced = await racedScheduler(async () => {
      if (calls.n > 1) return;
      // What tflowFinishOneOff writes before its delete (which carries no token).
      await updateJob(t.client, jobId, finishedUpdate);
    }, calls);
    try {
      await expect(raced.scheduler.rescheduleJob(jobId, { cron: '0 4 * * *' })).rejects.toBeInstanceOf(
        JobNotFoundError,
      );
    } finally {
      await raced.connection.close();
    }
    // Our update was computed before the mark, dropped by the server, and the re-read refused it.
    expect(calls.n).toBe(1);
    const d = await t.client.schedule.getHandle(jobId).describe();
    expect(d.state.note).toBe('one-off job done: being removed');
    expect(d.state.remainingActions).toBe(1);
    await t.client.schedule.getHandle(jobId).delete();
  });
});

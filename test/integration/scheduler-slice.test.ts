import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { JobAlreadyExistsError, JobNotFoundError } from '../../src/client/errors';
import { InvalidTriggerError } from '../../src/schedule/errors';
import { UnknownStepError } from '../../src/pipeline/errors';
import type { PipelineRunResult } from '../../src/workflows/run-types';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

const calls: string[] = [];
const steps = {
  async fetchUser(id: string) {
    calls.push(`fetchUser:${id}`);
    return { id, name: `user ${id}` };
  },
  async greet(user: { id: string; name: string }) {
    calls.push(`greet:${user.id}`);
    return `hello, ${user.name}`;
  },
  async shout(text: string) {
    calls.push(`shout:${text}`);
    return text.toUpperCase();
  },
};

let t: TestContext;
let scheduler: PipelineScheduler;

beforeAll(async () => {
  t = await connectTest('slice');
  await t.startWorker(steps);
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => t?.close());

async function scheduleExists(jobId: string): Promise<boolean> {
  try {
    await t.client.schedule.getHandle(jobId).describe();
    return true;
  } catch {
    return false;
  }
}

describe('end to end: schedule -> Temporal Schedule -> pipelineWorkflow -> steps', () => {
  it('triggers a job and runs its steps in order, each fed the previous result', async () => {
    const greeting = pipeline('greeting', { steps }).step('fetchUser').step('greet').step('shout');
    const jobId = await scheduler.scheduleInterval(greeting, {
      jobId: t.uid('greeting'),
      every: '1h',
      args: ['42'],
      paused: true,
    });
    const described = await t.client.schedule.getHandle(jobId).describe();
    expect(described.action.type).toBe('startWorkflow');
    expect(described.state.paused).toBe(true);

    await scheduler.triggerJob(jobId);
    const run = await waitFor('the triggered run in visibility', async () => {
      for await (const wf of t.client.workflow.list({ query: `TemporalScheduledById = '${jobId}'` }))
        return wf;
      return undefined;
    });
    const result = (await t.client.workflow.getHandle(run.workflowId).result()) as PipelineRunResult;
    expect(result.status).toBe('completed');
    expect(result.output).toBe('HELLO, USER 42');
    expect(result.steps.map((s) => s.id)).toEqual(['fetchUser', 'greet', 'shout']);
    expect(
      calls.filter(
        (c) => c.endsWith(':42') || c.startsWith('greet:42') || c.startsWith('shout:hello, user 42'),
      ),
    ).toEqual(['fetchUser:42', 'greet:42', 'shout:hello, user 42']);

    await scheduler.removeJob(jobId);
    expect(await scheduleExists(jobId)).toBe(false);
  });

  it('runs a pipeline directly through PipelineClient', async () => {
    const client = new PipelineClient(t.client, { taskQueue: t.taskQueue });
    const greeting = pipeline('greeting-direct', { steps }).step('fetchUser').step('greet');
    await expect(client.run(greeting, ['7'])).resolves.toBe('hello, user 7');
  });
});

describe('bad input on the slice: a typed error and nothing created', () => {
  it('rejects an unknown step name at definition time', () => {
    expect(() => pipeline('bad', { steps }).step('fetchUsr' as never)).toThrow(UnknownStepError);
    expect(() => pipeline('bad', { steps }).step('fetchUsr' as never)).toThrow(
      'unknown step "fetchUsr": the worker\'s steps are "fetchUser", "greet", "shout"',
    );
  });

  it('rejects a spec naming an unknown step before creating the schedule', async () => {
    const jobId = t.uid('unknown-step');
    const loose = pipeline('loose').step('fetchUser').step('nope');
    await expect(scheduler.scheduleInterval(loose, { jobId, every: '1h' })).rejects.toThrow(UnknownStepError);
    expect(await scheduleExists(jobId)).toBe(false);
  });

  it('rejects an invalid cron string and creates nothing', async () => {
    const jobId = t.uid('bad-cron');
    const p = pipeline('p', { steps }).step('fetchUser');
    const err = await scheduler.schedule(p, { jobId, cron: '61 * * * *' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidTriggerError);
    expect((err as InvalidTriggerError).message).toBe(
      'invalid cron "61 * * * *": minute field value "61" is out of range 0-59',
    );
    expect(await scheduleExists(jobId)).toBe(false);
  });

  it('rejects a duplicate job id and leaves the first job untouched', async () => {
    const jobId = t.uid('dup');
    const p = pipeline('p', { steps }).step('fetchUser');
    await scheduler.schedule(p, { jobId, cron: '0 2 * * *', note: 'first', paused: true });
    const err = await scheduler
      .schedule(p, { jobId, cron: '0 3 * * *', note: 'second' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobAlreadyExistsError);
    expect((err as JobAlreadyExistsError).jobId).toBe(jobId);
    const described = await t.client.schedule.getHandle(jobId).describe();
    expect(described.state.note).toBe('first');
    await scheduler.removeJob(jobId);
  });

  it('updates in place with replaceExisting', async () => {
    const jobId = t.uid('replace');
    const p = pipeline('p', { steps }).step('fetchUser');
    await scheduler.schedule(p, { jobId, cron: '0 2 * * *', note: 'first', paused: true });
    await scheduler.schedule(p, {
      jobId,
      cron: '0 3 * * *',
      note: 'second',
      paused: true,
      replaceExisting: true,
    });
    const described = await t.client.schedule.getHandle(jobId).describe();
    expect(described.state.note).toBe('second');
    expect(described.spec.calendars?.[0]?.hour).toEqual([{ start: 3, end: 3, step: 1 }]);
    await scheduler.removeJob(jobId);
  });

  it('says which job is missing', async () => {
    await expect(scheduler.removeJob('no-such-job')).rejects.toThrow(JobNotFoundError);
    await expect(scheduler.triggerJob('no-such-job')).rejects.toThrow('job "no-such-job" not found');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { temporal } from '@temporalio/proto';
import { pipeline } from '../../src/pipeline';
import { PipelineSpecError } from '../../src/pipeline/errors';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { InvalidArgumentError } from '../../src/errors';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * Temporal's Priority and Fairness through temporal-flow, read back from the server: a pipeline's
 * priority on its runs, a step's own on its activity (the others inherit the run's), a run's start option
 * and a job's over the pipeline's, a child pipeline's own on the child. What the server then does with
 * them (dispatch order, fair shares) is Temporal's, measured in bench/.
 */

const steps = {
  async plain(x: number) {
    return x + 1;
  },
  async urgent(x: number) {
    return x * 2;
  },
};

const tenantA = { priority: 2, fairnessKey: 'tenant-a', fairnessWeight: 2 };
const child = pipeline('priority-child', { steps, priority: { priority: 5 } }).step('plain');
const prioritized = pipeline('priority-run', { steps, priority: tenantA })
  .step('plain')
  .step('urgent', { priority: { priority: 1 } })
  .pipeline('sub', child);

let t: TestContext;
let client: PipelineClient;

beforeAll(async () => {
  t = await connectTest('priority');
  await t.startWorker(steps);
  client = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => {
  await t?.close();
});

/** A run's priority as the server holds it, with unset fields left out. */
async function priorityOf(workflowId: string) {
  const d = await t.client.workflow.getHandle(workflowId).describe();
  return setFields(d.raw.workflowExecutionInfo?.priority);
}

function setFields(p: temporal.api.common.v1.IPriority | null | undefined) {
  return Object.fromEntries(
    Object.entries({
      priorityKey: p?.priorityKey,
      fairnessKey: p?.fairnessKey,
      fairnessWeight: p?.fairnessWeight,
    }).filter(([, v]) => v !== undefined && v !== null && v !== 0 && v !== ''),
  );
}

describe('priority and fairness', () => {
  it("a pipeline's goes to its runs, a step's own to its activity, a child pipeline's to the child", async () => {
    const handle = await client.start(prioritized, [1]);
    await handle.result();
    expect(await priorityOf(handle.workflowId)).toEqual({
      priorityKey: 2,
      fairnessKey: 'tenant-a',
      fairnessWeight: 2,
    });
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = Object.fromEntries(
      events
        .map((e) => e.activityTaskScheduledEventAttributes)
        .filter((a) => a !== null && a !== undefined)
        .map((a) => [a.activityId, setFields(a.priority)]),
    );
    // Only the step that sets its own carries one: the other inherits the run's (Temporal's rule).
    expect(scheduled).toEqual({ plain: {}, urgent: { priorityKey: 1 } });
    // The child's own priority; the fields it leaves unset are its parent's (Temporal merges field by field).
    expect(await priorityOf(`${handle.workflowId}/sub`)).toEqual({
      priorityKey: 5,
      fairnessKey: 'tenant-a',
      fairnessWeight: 2,
    });
  });

  it("a run's start option is over the pipeline's", async () => {
    const handle = await client.start(prioritized, [1], {
      priority: { priority: 4, fairnessKey: 'tenant-b' },
    });
    await handle.result();
    expect(await priorityOf(handle.workflowId)).toEqual({ priorityKey: 4, fairnessKey: 'tenant-b' });
  });

  it("a job's goes to its schedule's action and its runs, and an edit keeps it", async () => {
    const scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
    const jobId = t.uid('priority-job');
    await scheduler.schedule(prioritized, {
      jobId,
      cron: '0 3 * * *',
      args: [1],
      paused: true,
      priority: { fairnessKey: 'tenant-c', fairnessWeight: 0.5 },
    });
    try {
      await scheduler.modifyJob(jobId, { note: 'edited' });
      const d = await t.client.schedule.getHandle(jobId).describe();
      expect(setFields(d.raw.schedule?.action?.startWorkflow?.priority)).toEqual({
        fairnessKey: 'tenant-c',
        fairnessWeight: 0.5,
      });
      await scheduler.triggerJob(jobId);
      const [run] = await waitFor('the triggered run', async () => {
        const runs = await scheduler.getHistory(jobId);
        return runs.length > 0 ? runs : undefined;
      });
      expect(await priorityOf(run!.workflowId)).toEqual({ fairnessKey: 'tenant-c', fairnessWeight: 0.5 });
    } finally {
      await scheduler.removeJob(jobId);
    }
  });

  it('bad values are refused where they are given, naming the option', async () => {
    expect(() => pipeline('bad-priority', { priority: { priority: 0 } })).toThrow(PipelineSpecError);
    expect(() => pipeline('bad-priority', { priority: { priority: 0 } })).toThrow(
      'invalid pipeline: priority.priority: priority must be 1 to 5, got 0',
    );
    expect(() =>
      pipeline('bad-priority', { steps }).step('plain', { priority: { fairnessKey: '' } }),
    ).toThrow('a fairness key cannot be empty');
    expect(() =>
      pipeline('bad-priority', { steps }).step('plain', { local: true, priority: { priority: 1 } }),
    ).toThrow('drop `priority`, or make the step regular');
    const start = client.start(prioritized, [1], { priority: { fairnessWeight: -1 } });
    await expect(start).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(start).rejects.toMatchObject({ field: 'priority.fairnessWeight' });
    const scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
    await expect(
      scheduler.schedule(prioritized, {
        jobId: t.uid('bad'),
        cron: '0 3 * * *',
        priority: 'high' as never,
      }),
    ).rejects.toThrow(
      'priority must be an object such as { priority: 2, fairnessKey: \'tenant-a\' }, got "high"',
    );
  });
});

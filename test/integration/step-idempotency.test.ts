import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { NotInStepError, stepIdempotencyKey } from '../../src/worker/step-idempotency';
import { OCCURRENCE_HEADER } from '../../src/workflows/idempotency/occurrence';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/** Keys seen by each step, by a tag the test passes in the arguments. */
const seen = new Map<string, string[]>();
const record = (tag: string) => seen.set(tag, [...(seen.get(tag) ?? []), stepIdempotencyKey()]);
/** Tags whose `charge` fails for good until removed (to make dead letters to redrive). */
const broken = new Set<string>();

const steps = {
  async flaky(tag: string) {
    record(`${tag}:flaky`);
    if (Context.current().info.attempt < 3) throw new Error('transient');
    return tag;
  },
  async charge(tag: string) {
    record(`${tag}:charge`);
    if (broken.has(tag)) {
      throw ApplicationFailure.create({ type: 'Down', message: 'payment down', nonRetryable: true });
    }
    return tag;
  },
  async split(tag: string) {
    return [`${tag}:a`, `${tag}:b`, `${tag}:c`];
  },
  async item(tag: string) {
    record(tag);
    return tag;
  },
};
const retry = { initialInterval: '50ms', backoffCoefficient: 1 };
const retried = pipeline('idem-retry', { steps, timeout: '1m' }).step('flaky', { retry });
const charged = pipeline('idem-charge', { steps, timeout: '1m' }).step('charge');
const mapped = pipeline('idem-map', { steps, timeout: '1m' }).step('split').map('item', { id: 'each' });

let t: TestContext;
let client: PipelineClient;
beforeAll(async () => {
  t = await connectTest('idempotency');
  await t.startWorker(steps);
  client = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => t?.close());

describe('stepIdempotencyKey()', () => {
  it('is the same on every attempt of a step, and differs between two runs', async () => {
    const [a, b] = [t.uid('tag'), t.uid('tag')];
    const idA = t.uid('idem-a');
    await client.run(retried, [a], { workflowId: idA });
    await client.run(retried, [b]);
    const keysA = seen.get(`${a}:flaky`)!;
    expect(keysA).toHaveLength(3);
    expect(new Set(keysA).size).toBe(1);
    expect(keysA[0]).toBe(`${idA}/flaky`);
    expect(seen.get(`${b}:flaky`)![0]).not.toBe(keysA[0]);
    // A run that stands for itself sends no occurrence header: the key comes from the activity's own
    // workflow id (bench/run-bytes: ~90 bytes of history per step).
    const events = (await t.client.workflow.getHandle(idA).fetchHistory()).events ?? [];
    const headers = events
      .map((e) => e.activityTaskScheduledEventAttributes?.header?.fields)
      .filter((f) => f !== undefined);
    expect(headers.length).toBeGreaterThan(0);
    for (const fields of headers) expect(Object.keys(fields ?? {})).not.toContain(OCCURRENCE_HEADER);
  });

  it('is the same in a redriven run, and in a redrive of that redrive', async () => {
    const tag = t.uid('tag');
    broken.add(tag);
    const first = t.uid('idem-first');
    await expect(client.run(charged, [tag], { workflowId: first })).rejects.toBeInstanceOf(
      WorkflowFailedError,
    );
    const again = await client.redrive(first);
    await expect(again.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    broken.delete(tag);
    const third = await client.redrive(again.workflowId);
    await third.result();
    const keys = seen.get(`${tag}:charge`)!;
    expect(keys).toEqual([`${first}/charge`, `${first}/charge`, `${first}/charge`]);
  });

  it('differs between the items of a map (step path <map id>[<index>])', async () => {
    const tag = t.uid('tag');
    const workflowId = t.uid('idem-map');
    await client.run(mapped, [tag], { workflowId });
    expect(['a', 'b', 'c'].map((x) => seen.get(`${tag}:${x}`))).toEqual([
      [`${workflowId}/each[0]`],
      [`${workflowId}/each[1]`],
      [`${workflowId}/each[2]`],
    ]);
  });

  it('is <jobId>@<nominal time> for scheduled occurrences: different per occurrence, kept by a redrive', async () => {
    const scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
    const tag = t.uid('tag');
    broken.add(tag);
    const jobId = await scheduler.scheduleInterval(charged, {
      jobId: t.uid('idem-job'),
      hours: 1,
      args: [tag],
      paused: true,
    });
    try {
      await scheduler.triggerJob(jobId);
      const [run1] = await waitFor('the first run', async () => {
        const job = await scheduler.getJob(jobId);
        return job.recentRuns.length === 1 ? job.recentRuns : undefined;
      });
      await expect(t.client.workflow.getHandle(run1!.workflowId).result()).rejects.toBeInstanceOf(
        WorkflowFailedError,
      );
      broken.delete(tag);
      // Nominal times count in whole seconds (below): trigger the second occurrence in a later second.
      const second = (d: Date | number) => Math.floor(new Date(d).getTime() / 1000);
      await waitFor('the next second', async () =>
        second(Date.now()) > second(run1!.scheduledAt) ? true : undefined,
      );
      await scheduler.triggerJob(jobId);
      const run2 = await waitFor('the second run', async () => {
        const job = await scheduler.getJob(jobId);
        return job.recentRuns.find((r) => r.workflowId !== run1!.workflowId);
      });
      await t.client.workflow.getHandle(run2.workflowId).result();
      await (await client.redrive(run1!.workflowId)).result();

      // TemporalScheduledStartTime, the nominal time a run sees, is stored to the second.
      const nominal = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString();
      const keys = seen.get(`${tag}:charge`)!;
      expect(keys).toEqual([
        `${jobId}@${nominal(run1!.scheduledAt)}/charge`,
        `${jobId}@${nominal(run2.scheduledAt)}/charge`,
        `${jobId}@${nominal(run1!.scheduledAt)}/charge`,
      ]);
      expect(keys[0]).not.toBe(keys[1]);
    } finally {
      await scheduler.removeJob(jobId);
    }
  });

  it('outside a step throws NotInStepError', () => {
    expect(() => stepIdempotencyKey()).toThrow(NotInStepError);
    expect(() => stepIdempotencyKey()).toThrow('call it inside a step function');
  });
});

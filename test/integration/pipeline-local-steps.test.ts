import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { stepIdempotencyKey } from '../../src/worker/step-idempotency';
import type { PipelineFailureDetails } from '../../src/workflows/run-types';
import { connectTest, type TestContext } from '../helpers/temporal';

/** Every call the steps see, in order: `name#attempt` (and whether the worker ran it as a local activity). */
let calls: string[] = [];
let keys: string[] = [];
const call = (name: string) => {
  const info = Context.current().info;
  calls.push(`${name}#${info.attempt}${info.isLocal ? ' local' : ''}`);
};

const steps = {
  async add(x: number) {
    call('add');
    return x + 1;
  },
  /** Fails its first two attempts. */
  async flaky(x: number) {
    call('flaky');
    keys.push(stepIdempotencyKey());
    if (Context.current().info.attempt < 3) throw new Error('not yet');
    return x * 10;
  },
  async boom(_x: unknown) {
    call('boom');
    throw ApplicationFailure.create({ type: 'Boom', message: 'boom', nonRetryable: true });
  },
  async undo(...args: unknown[]) {
    call(`undo(${args.map((a) => JSON.stringify(a)).join(', ')})`);
  },
  async regular(x: number) {
    call('regular');
    return `regular(${x})`;
  },
};

let t: TestContext;
let client: PipelineClient;

beforeAll(async () => {
  t = await connectTest('local-steps');
  await t.startWorker(steps);
  client = new PipelineClient(t.client, { taskQueue: t.taskQueue });
});
afterAll(async () => t?.close());
beforeEach(() => {
  calls = [];
  keys = [];
});

/** What the run's history holds: regular activities scheduled, and local activity markers. */
async function commandsOf(handle: WorkflowHandle): Promise<{ scheduled: string[]; markers: number }> {
  const events = (await handle.fetchHistory()).events ?? [];
  return {
    scheduled: events.flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityId!] : [],
    ),
    markers: events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')
      .length,
  };
}

describe('local steps', () => {
  it('retries a local step in the worker with its own policy; the key names the step', async () => {
    const p = pipeline('local-retry', { steps, localSteps: true })
      .step('add')
      .step('flaky', { retry: { maximumAttempts: 3, initialInterval: '50ms' } });
    const workflowId = t.uid('local-retry');
    const handle = await client.start(p, [1], { workflowId });
    const result = await handle.result();

    expect(result.output).toBe(20);
    expect(result.steps.map((s) => s.id)).toEqual(['add', 'flaky']);
    expect(calls).toEqual(['add#1 local', 'flaky#1 local', 'flaky#2 local', 'flaky#3 local']);
    // Same key on every attempt, `<workflow id>/<step id>` as for a regular step.
    expect(keys).toEqual([1, 2, 3].map(() => `${workflowId}/flaky`));
    const history = await commandsOf(handle);
    expect(history.scheduled).toEqual([]);
    expect(history.markers).toBeGreaterThanOrEqual(2);
  });

  it('compensates a completed local step when a later local step fails for good, with exact attempts', async () => {
    const p = pipeline('local-saga', { steps, localSteps: true })
      .step('add', { compensate: 'undo' })
      .step('boom');
    const err = await client.run(p, [1], { workflowId: t.uid('local-saga') }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const app = (err as WorkflowFailedError).cause as ApplicationFailure;
    expect(app.type).toBe('PipelineFailed');
    expect(calls).toEqual(['add#1 local', 'boom#1 local', 'undo(1, 2)#1 local']);
    expect(app.details![0]).toMatchObject({
      failedStep: 'boom',
      attempts: 1,
      errorType: 'Boom',
      completedSteps: ['add'],
      compensations: [{ stepId: 'add', activity: 'undo', status: 'completed' }],
    } satisfies Partial<PipelineFailureDetails>);
  });

  it('mixes local and regular steps in a parallel group, and runs a local map', async () => {
    const fan = pipeline('local-fan', { steps })
      .step('add', { local: true })
      .parallel([{ step: 'add', id: 'add-local', local: true }, 'regular'], { id: 'fan' });
    const fanHandle = await client.start(fan, [1], { workflowId: t.uid('local-fan') });
    const fanResult = await fanHandle.result();
    expect(fanResult.output).toEqual([3, 'regular(2)']);
    expect(fanResult.steps.map((s) => s.id).sort()).toEqual(['add', 'add-local', 'regular']);
    expect(calls.sort()).toEqual(['add#1 local', 'add#1 local', 'regular#1']);
    expect(await commandsOf(fanHandle)).toEqual({ scheduled: ['regular'], markers: 2 });

    calls = [];
    const mapped = pipeline('local-map', { steps })
      .map('add', { id: 'each', local: true, concurrency: 2 })
      .step('regular');
    const mapHandle = await client.start(mapped, [[1, 2, 3]], { workflowId: t.uid('local-map') });
    expect((await mapHandle.result()).output).toBe('regular(2,3,4)');
    expect(calls).toEqual(['add#1 local', 'add#1 local', 'add#1 local', 'regular#1']);
    expect(await commandsOf(mapHandle)).toEqual({ scheduled: ['regular'], markers: 3 });
  });
});

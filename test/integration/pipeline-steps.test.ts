import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import type { PipelineFailureDetails, PipelineProgress } from '../../src/workflows/run-types';
import { connectTest, type TestContext } from '../helpers/temporal';

class BadInput extends Error {
  override name = 'BadInput';
}

let attempts: { attempt: number; at: number }[] = [];
let calls: string[] = [];
let inFlight = 0;
let maxInFlight = 0;
let failUntilAttempt = 0;
const allGates: (() => void)[] = [];
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  allGates.push(open);
  return { open, opened };
}
let gates: Record<string, ReturnType<typeof gate>> = {};

const steps = {
  async flaky(x: number) {
    const { attempt } = Context.current().info;
    attempts.push({ attempt, at: Date.now() });
    if (attempt <= failUntilAttempt) throw new Error(`flaky failure on attempt ${attempt}`);
    return x * 2;
  },
  async strict(_x: unknown) {
    attempts.push({ attempt: Context.current().info.attempt, at: Date.now() });
    throw new BadInput('bad input: expected a positive number');
  },
  async inc(x: number) {
    calls.push(`inc:${x}`);
    return x + 1;
  },
  async triple(x: number) {
    calls.push(`triple:${x}`);
    return x * 3;
  },
  async range(n: number) {
    return Array.from({ length: n }, (_, i) => i);
  },
  async slowDouble(x: number) {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, 150));
    inFlight--;
    return x * 2;
  },
  async item(x: number) {
    calls.push(`item:${x}`);
    if (x === 13) {
      gates.item13!.open();
      throw ApplicationFailure.create({ type: 'ItemFailed', message: 'item 13 failed', nonRetryable: true });
    }
    if (x === 12) {
      // Finish only once the workflow has seen item 13 fail, so the order is exact, not a race.
      await gates.item13!.opened;
      const run = t.client.workflow.getHandle(Context.current().info.workflowExecution!.workflowId);
      while ((await run.query<PipelineProgress>('progress')).running?.includes('each[3]')) {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    return `done(${x})`;
  },
  /** Compensation of `item`: called with the item, then what `item` returned. */
  async undo(item: number, output: string) {
    calls.push(`undo:${item}:${output}`);
  },
  async block() {
    await gates.block!.opened;
    return 'unblocked';
  },
};

let t: TestContext;
let client: PipelineClient;

beforeAll(async () => {
  t = await connectTest('steps');
  await t.startWorker(steps);
  client = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => t?.close());
beforeEach(() => {
  attempts = [];
  calls = [];
  inFlight = 0;
  maxInFlight = 0;
  gates = { item13: gate(), block: gate() };
});
afterEach(() => allGates.forEach((open) => open()));

async function pipelineFailure(run: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await run.then(
    () => new Error('the run should have failed'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect((cause as ApplicationFailure).type).toBe('PipelineFailed');
  return cause as ApplicationFailure;
}

describe('retries', () => {
  const retry = { maximumAttempts: 3, initialInterval: 100, backoffCoefficient: 2 };

  it('retries the configured number of times with the configured backoff, then fails with exact attempts', async () => {
    failUntilAttempt = 99;
    const workflowId = t.uid('retry-exhausted');
    const p = pipeline('retry-exhausted', { steps }).step('inc').step('flaky', { retry });
    const failure = await pipelineFailure(client.run(p, [1], { workflowId }));

    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    // Backoff: 100 ms before the 2nd attempt, 200 ms before the 3rd (coefficient 2).
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(100);
    expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(200);
    expect(failure.details![0]).toMatchObject({
      failedStep: 'flaky',
      attempts: 3,
      input: [2],
      message: 'flaky failure on attempt 3',
      errorType: 'Error',
    } satisfies Partial<PipelineFailureDetails>);

    // The history agrees: the policy the server applied and the attempt of the last try.
    const history = await t.client.workflow.getHandle(workflowId).fetchHistory();
    const scheduled = history.events!.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityId === 'flaky',
    )!.activityTaskScheduledEventAttributes!;
    expect(scheduled.activityType?.name).toBe('flaky');
    expect(scheduled.retryPolicy?.maximumAttempts).toBe(3);
    expect(scheduled.retryPolicy?.backoffCoefficient).toBe(2);
    expect(Number(scheduled.retryPolicy?.initialInterval?.nanos)).toBe(100_000_000);
    const flakyEventId = history.events!.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityId === 'flaky',
    )!.eventId;
    const started = history.events!.find(
      (e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(flakyEventId),
    )!;
    expect(started.activityTaskStartedEventAttributes!.attempt).toBe(3);
  });

  it('succeeds on a later attempt and feeds the result to the next step', async () => {
    failUntilAttempt = 2;
    const p = pipeline('retry-success', { steps }).step('flaky', { retry }).step('inc');
    expect(await client.run(p, [5], { workflowId: t.uid('retry-success') })).toBe(11);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
  });

  it('stops at once on a non-retryable error type', async () => {
    const p = pipeline('non-retryable', { steps }).step('strict', {
      retry: { maximumAttempts: 5, initialInterval: 100, nonRetryableErrorTypes: ['BadInput'] },
    });
    const failure = await pipelineFailure(client.run(p, [1], { workflowId: t.uid('non-retryable') }));
    expect(attempts.map((a) => a.attempt)).toEqual([1]);
    expect(failure.details![0]).toMatchObject({
      failedStep: 'strict',
      attempts: 1,
      errorType: 'BadInput',
      message: 'bad input: expected a positive number',
    });
  });
});

describe('parallel groups and map', () => {
  it('gives every branch the same input and the next step the array of branch outputs', async () => {
    const p = pipeline('parallel-ok', { steps }).parallel([['inc', 'triple'], 'range'], { id: 'fan' });
    const result = await (await client.start(p, [2], { workflowId: t.uid('parallel-ok') })).result();
    expect(result.output).toEqual([9, [0, 1]]);
    expect(calls).toEqual(['inc:2', 'triple:3']);
    expect(result.steps.map((s) => s.id).sort()).toEqual(['inc', 'range', 'triple']);
  });

  it('never runs more map items at once than its concurrency, and keeps item order', async () => {
    const p = pipeline('map-bound', { steps })
      .step('range')
      .map('slowDouble', { id: 'each', concurrency: 3 });
    const result = await (await client.start(p, [8], { workflowId: t.uid('map-bound') })).result();
    expect(result.output).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
    expect(maxInFlight).toBe(3);
    expect(result.steps.map((s) => s.id)).toEqual(['range', 'each']);
  });

  it('stops starting items after a failure and compensates the items that completed', async () => {
    const p = pipeline('map-saga', { steps }).map('item', { id: 'each', concurrency: 2, compensate: 'undo' });
    const failure = await pipelineFailure(
      client.run(p, [[10, 11, 12, 13, 14, 15]], { workflowId: t.uid('map-saga') }),
    );
    expect(calls.filter((c) => c.startsWith('item')).sort()).toEqual([
      'item:10',
      'item:11',
      'item:12',
      'item:13',
    ]);
    const undone = calls.filter((c) => c.startsWith('undo'));
    // Item 12 completed last (it waited for 13 to fail), so it is undone first.
    expect(undone[0]).toBe('undo:12:done(12)');
    expect(undone.slice(1).sort()).toEqual(['undo:10:done(10)', 'undo:11:done(11)']);
    expect(failure.details![0]).toMatchObject({
      failedStep: 'each[3]',
      failedNode: 'each',
      input: [13],
      attempts: 1,
      errorType: 'ItemFailed',
    });
  });
});

describe('map input', () => {
  it('fails the run, without retrying, when a map receives something other than an array', async () => {
    const p = pipeline('map-not-array', { steps }).step('inc').map('slowDouble', { id: 'each' });
    const failure = await pipelineFailure(client.run(p, [1], { workflowId: t.uid('map-not-array') }));
    expect(failure.message).toBe(
      'pipeline "map-not-array" failed at step "each": map step "each" needs an array as input, got number',
    );
    expect(failure.details![0]).toMatchObject({
      failedStep: 'each',
      attempts: 0,
      input: [2],
      errorType: 'PipelineMapInputNotArray',
    });
  });
});

describe('progress query', () => {
  it('reports the current step while it is blocked, then the completed run', async () => {
    const p = pipeline('progress', { steps }).step('inc').step('block');
    const handle = await client.start(p, [1], { workflowId: t.uid('progress') });
    const running = await expect
      .poll(() => handle.query<PipelineProgress>('progress'), { timeout: 20_000 })
      .toMatchObject({ currentStep: 'block' })
      .then(() => handle.query<PipelineProgress>('progress'));
    expect(running).toEqual({
      pipeline: 'progress',
      status: 'running',
      currentStep: 'block',
      running: ['block'],
      completed: [{ id: 'inc', durationMs: expect.any(Number) }],
    });
    gates.block!.open();
    await handle.result();
    expect(await handle.query<PipelineProgress>('progress')).toMatchObject({
      status: 'completed',
      currentStep: null,
      running: [],
      completed: [{ id: 'inc' }, { id: 'block' }],
    });
  });
});

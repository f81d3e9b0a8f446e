import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Context } from '@temporalio/activity';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import type { PipelineFailureDetails } from '../../src/workflows/run-types';
import { connectTest, type TestContext } from '../helpers/temporal';

/** Every call the steps see, in order: `name` or `name#attempt`. */
let calls: string[] = [];
let hookDetails: PipelineFailureDetails[] = [];

/** A promise the test resolves to let a step go on (steps and test share this process). */
const allGates: { open(): void }[] = [];
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  allGates.push({ open });
  return { open, opened };
}
let gates: Record<string, ReturnType<typeof gate>> = {};
const show = (args: unknown[]) => args.map((a) => JSON.stringify(a)).join(', ');

const steps = {
  async a(x: number) {
    calls.push('a');
    return x + 1;
  },
  async b(x: number) {
    calls.push('b');
    return x * 10;
  },
  async c(x: number) {
    calls.push('c');
    return `c(${x})`;
  },
  async boom(_x: unknown) {
    calls.push(`boom#${Context.current().info.attempt}`);
    throw ApplicationFailure.create({ type: 'Boom', message: 'boom', nonRetryable: true });
  },
  async never() {
    calls.push('never');
    return 'never';
  },
  /** A compensation receives the step's arguments, then the step's result. */
  async undo(...args: unknown[]) {
    calls.push(`undo(${show(args)})`);
  },
  async undoBroken(...args: unknown[]) {
    calls.push(`undoBroken(${show(args)})#${Context.current().info.attempt}`);
    throw new Error('cannot undo');
  },
  async hook(details: PipelineFailureDetails) {
    calls.push('hook');
    hookDetails.push(details);
  },
  // Parallel branches, ordered by gates rather than by sleeps so that completion order is exact.
  async p1(x: number) {
    calls.push('p1');
    return `p1(${x})`;
  },
  async q1(x: number) {
    await gates.p1done!.opened;
    calls.push('q1');
    return `q1(${x})`;
  },
  async q2(_x: unknown) {
    calls.push('q2');
    gates.q2failed!.open();
    throw ApplicationFailure.create({ type: 'Q2', message: 'q2 failed', nonRetryable: true });
  },
  async p3(x: number) {
    await gates.q2failed!.opened;
    calls.push('p3');
    return `p3(${x})`;
  },
  async block() {
    calls.push('block');
    await gates.block!.opened;
    return 'unblocked';
  },
};

let t: TestContext;
let client: PipelineClient;

beforeAll(async () => {
  t = await connectTest('saga');
  await t.startWorker({
    ...steps,
    // p1 opens the gate only after it returned, so q1 completes strictly after p1 in the history.
    async p1done(x: number) {
      gates.p1done!.open();
      return x;
    },
  });
  client = new PipelineClient(t.client, { taskQueue: t.taskQueue });
});
afterAll(async () => t?.close());
// A step still blocked (cancelled or timed-out run) would keep the worker from shutting down.
afterEach(() => allGates.forEach((g) => g.open()));
beforeEach(() => {
  calls = [];
  hookDetails = [];
  gates = { p1done: gate(), q2failed: gate(), block: gate() };
});

async function failureOf(
  run: Promise<unknown>,
): Promise<{ err: WorkflowFailedError; app: ApplicationFailure }> {
  const err = await run.then(
    () => {
      throw new Error('the run should have failed');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const app = (err as WorkflowFailedError).cause;
  expect(app).toBeInstanceOf(ApplicationFailure);
  return { err: err as WorkflowFailedError, app: app as ApplicationFailure };
}

describe('saga', () => {
  it('compensates completed steps in exact reverse order, then runs the hook, then fails with complete details', async () => {
    const p = pipeline('saga-order', { steps })
      .step('a', { compensate: 'undo' })
      .step('b')
      .step('c', { compensate: 'undo' })
      .step('boom')
      .step('never', { compensate: 'undo' })
      .onFailure('hook');
    const { app } = await failureOf(client.run(p, [1], { workflowId: t.uid('saga-order') }));

    expect(calls).toEqual(['a', 'b', 'c', 'boom#1', 'undo(20, "c(20)")', 'undo(1, 2)', 'hook']);
    expect(app.type).toBe('PipelineFailed');
    expect(app.message).toBe('pipeline "saga-order" failed at step "boom": boom');
    const expected: PipelineFailureDetails = {
      pipeline: 'saga-order',
      failedStep: 'boom',
      attempts: 1,
      input: ['c(20)'],
      message: 'boom',
      errorType: 'Boom',
      completedSteps: ['a', 'b', 'c'],
      failedNode: 'boom',
      nodeInputs: { a: [1], b: [2], c: [20], boom: ['c(20)'] },
      compensations: [
        { stepId: 'c', activity: 'undo', status: 'completed' },
        { stepId: 'a', activity: 'undo', status: 'completed' },
      ],
    };
    expect(app.details).toEqual([expected]);
    expect(hookDetails).toEqual([expected]);
    // The whole chain: PipelineFailed -> ActivityFailure -> the step's own ApplicationFailure.
    expect(app.cause).toBeInstanceOf(ActivityFailure);
    const stepFailure = app.cause!.cause as ApplicationFailure;
    expect(stepFailure).toBeInstanceOf(ApplicationFailure);
    expect([stepFailure.type, stepFailure.message, stepFailure.nonRetryable]).toEqual(['Boom', 'boom', true]);
  });

  it('records a compensation that fails for good and still runs the others', async () => {
    const p = pipeline('saga-broken', { steps })
      .step('a', { compensate: 'undo' })
      .step('c', {
        compensate: 'undoBroken',
        compensateRetry: { maximumAttempts: 2, initialInterval: 50 },
      })
      .step('boom');
    const { app } = await failureOf(client.run(p, [1], { workflowId: t.uid('saga-broken') }));

    expect(calls).toEqual([
      'a',
      'c',
      'boom#1',
      'undoBroken(2, "c(2)")#1',
      'undoBroken(2, "c(2)")#2',
      'undo(1, 2)',
    ]);
    const details = app.details![0] as PipelineFailureDetails;
    expect(details.compensations).toEqual([
      { stepId: 'c', activity: 'undoBroken', status: 'failed', error: 'cannot undo', attempts: 2 },
      { stepId: 'a', activity: 'undo', status: 'completed' },
    ]);
  });

  it('compensates the parallel branches that completed, in reverse completion order', async () => {
    const p = pipeline('saga-parallel', { steps: [...Object.keys(steps), 'p1done'] })
      .step('a', { compensate: 'undo' })
      .parallel(
        [
          [
            { step: 'p1', compensate: 'undo' },
            { step: 'p1done', id: 'p1done' },
          ],
          [{ step: 'q1', compensate: 'undo' }, 'q2'],
          [{ step: 'p3', compensate: 'undo' }],
        ],
        { id: 'fan' },
      )
      .step('never', { compensate: 'undo' });
    const { app } = await failureOf(client.run(p, [1], { workflowId: t.uid('saga-parallel') }));

    expect(calls.filter((c) => c.startsWith('undo'))).toEqual([
      'undo(2, "p3(2)")',
      'undo(2, "q1(2)")',
      'undo(2, "p1(2)")',
      'undo(1, 2)',
    ]);
    expect(calls).not.toContain('never');
    const details = app.details![0] as PipelineFailureDetails;
    expect(details).toMatchObject({
      failedStep: 'q2',
      failedNode: 'fan',
      input: ['q1(2)'],
      attempts: 1,
      errorType: 'Q2',
      nodeInputs: { a: [1], fan: [2] },
    });
    // p1done opens q1's gate while it runs, so p1done and q1 may finish in either order; the rest is exact.
    expect([...details.completedSteps].sort()).toEqual(['a', 'p1', 'p1done', 'p3', 'q1']);
    expect(details.completedSteps.filter((id) => id !== 'p1done')).toEqual(['a', 'p1', 'q1', 'p3']);
  });

  it('compensates when the run is cancelled, and ends cancelled', async () => {
    const p = pipeline('saga-cancel', { steps }).step('a', { compensate: 'undo' }).step('block');
    const handle = await client.start(p, [1], { workflowId: t.uid('saga-cancel') });
    await expect.poll(() => calls).toEqual(['a', 'block']);
    await handle.cancel();
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect(calls).toEqual(['a', 'block', 'undo(1, 2)']);
    expect(await handle.query('progress')).toMatchObject({
      status: 'cancelled',
      compensations: [{ stepId: 'a', activity: 'undo', status: 'completed' }],
    });
  });

  it('rolls back and fails with timedOut when the whole-run timeout fires', async () => {
    const p = pipeline('saga-timeout', { steps, timeout: '1s' })
      .step('a', { compensate: 'undo' })
      .step('block')
      .onFailure('hook');
    const { app } = await failureOf(client.run(p, [1], { workflowId: t.uid('saga-timeout') }));
    expect(app.message).toBe(
      'pipeline "saga-timeout" failed at step "block": the run timed out after 1000 ms',
    );
    expect(app.details![0]).toMatchObject({
      failedStep: 'block',
      timedOut: true,
      input: [2],
      compensations: [{ stepId: 'a', activity: 'undo', status: 'completed' }],
    });
    expect(calls).toEqual(['a', 'block', 'undo(1, 2)', 'hook']);
  });
});

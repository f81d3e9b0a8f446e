/*
 * Executes the nodes of a spec: a step, a parallel group, a map (here), a sleep or a wait for a signal
 * (wait-nodes.ts), a child pipeline (child-runs.ts). Pure interpretation of the persisted
 * spec; the order of commands issued here is what recorded histories replay against, so a change to it
 * needs `patched()`.
 */
import { ApplicationFailure, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { MapSpec, NodeSpec, ParallelSpec, StepSpec } from '../../pipeline/spec';
import { attemptsOf, stepActivity } from './step-options';
import { MAP_INPUT_NOT_ARRAY } from '../failure-types';
import { StepFailed, type RunContext } from './run-context';
import { runSleep, runWaitFor } from './wait-nodes';
import { runChildPipeline } from './child-runs';
import { rateLimitedTaskQueue } from './rate-limit';

/** Runs one top-level node on `input` (the previous node's output as an argument list). */
export function runNode(node: NodeSpec, input: unknown[], ctx: RunContext): Promise<unknown> {
  // Not async: it only dispatches (an async frame would add a promise, and a stack capture, per node).
  switch (node.kind) {
    case 'step':
      return runActivity(node, node.id, input, ctx, true);
    case 'parallel':
      return runParallel(node, input, ctx);
    case 'map':
      return runMap(node, input, ctx);
    case 'sleep':
      return runSleep(node, input, ctx);
    case 'waitFor':
      return runWaitFor(node, input, ctx);
    case 'pipeline':
      return runChildPipeline(node, input, ctx);
  }
}

function runActivity(
  step: StepSpec | MapSpec,
  stepId: string,
  input: unknown[],
  ctx: RunContext,
  recordCompletion: boolean,
): Promise<unknown> {
  const started = startActivity(step, stepId, input, ctx);
  // One `then` rather than an async frame and an await: two promises fewer per step, each a stack capture
  // by the SDK's promise hook. The continuation runs on the same microtask turn as an await would.
  return started.pending.then(
    (output) => activityDone(step, stepId, input, output, started.at, ctx, recordCompletion),
    (err: unknown) => {
      throw activityFailed(step, stepId, input, err, ctx);
    },
  );
}

/**
 * Schedules the activity of a step (or a map item) and marks it running. With {@link activityDone} and
 * {@link activityFailed}, what {@link runActivity} does around it: the interpreter's loop awaits a
 * top-level step's activity itself with these, a promise fewer per step than through `runActivity`.
 */
export function startActivity(
  step: StepSpec | MapSpec,
  stepId: string,
  input: unknown[],
  ctx: RunContext,
): { pending: Promise<unknown>; at: number } {
  // A step served elsewhere names its queue (`taskQueue`), a rate-limited one runs on its queue's companion;
  // both are newer options than every recorded run, whose steps take the run's queue as they did.
  const fn = stepActivity(
    step,
    step.activity,
    stepId,
    step.retry,
    step.rateLimitPerSecond !== undefined
      ? rateLimitedTaskQueue(step.taskQueue ?? workflowInfo().taskQueue, step.activity)
      : step.taskQueue,
  );
  const at = Date.now();
  ctx.progress.started(stepId);
  return { pending: fn(...input), at };
}

/** A step's activity returned `output` (started at `startedAt`): its progress and saga; returns the output. */
export function activityDone(
  step: StepSpec | MapSpec,
  stepId: string,
  input: unknown[],
  output: unknown,
  startedAt: number,
  ctx: RunContext,
  recordCompletion: boolean,
): unknown {
  ctx.progress.stopped(stepId);
  if (recordCompletion) ctx.progress.completed({ id: stepId, durationMs: Date.now() - startedAt });
  ctx.saga.record(step, stepId, input, output);
  return output;
}

/** A step's activity failed for good (or was cancelled): the {@link StepFailed} to throw. */
export function activityFailed(
  step: StepSpec | MapSpec,
  stepId: string,
  input: unknown[],
  err: unknown,
  ctx: RunContext,
): StepFailed {
  ctx.progress.stopped(stepId);
  return new StepFailed(stepId, input, attemptsOf(err, step.retry), isCancellation(err), err);
}

/**
 * Every branch runs to its end even when another fails, so that what a branch did is known (and
 * compensated) rather than abandoned mid-flight. The failure reported is the first real failure in
 * branch order; cancellations only when nothing else failed.
 */
async function runParallel(node: ParallelSpec, input: unknown[], ctx: RunContext): Promise<unknown[]> {
  const settled = await Promise.allSettled(
    node.branches.map(async (branch) => {
      let current = input;
      for (const step of branch) current = [await runActivity(step, step.id, current, ctx, true)];
      return current[0];
    }),
  );
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
  if (failures.length > 0) {
    throw failures.find((f) => f instanceof StepFailed && !f.cancelled) ?? failures[0];
  }
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value);
}

/**
 * A pool of `concurrency` loops takes the items in order. After the first failure no new item starts;
 * the items in flight finish (and are compensated with the rest).
 */
async function runMap(node: MapSpec, input: unknown[], ctx: RunContext): Promise<unknown[]> {
  const items = input[0];
  if (!Array.isArray(items)) {
    const error = ApplicationFailure.create({
      type: MAP_INPUT_NOT_ARRAY,
      message: `map step "${node.id}" needs an array as input, got ${items === null ? 'null' : typeof items}`,
      nonRetryable: true,
    });
    throw new StepFailed(node.id, input, 0, false, error);
  }
  const startedAt = Date.now();
  const results: unknown[] = new Array(items.length);
  let next = 0;
  let failure: unknown;
  const loop = async () => {
    while (failure === undefined && next < items.length) {
      const i = next++;
      try {
        results[i] = await runActivity(node, `${node.id}[${i}]`, [items[i]], ctx, false);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(node.concurrency, items.length) }, loop));
  if (failure !== undefined) throw failure;
  ctx.progress.completed({ id: node.id, durationMs: Date.now() - startedAt });
  return results;
}

import { ApplicationFailure } from '@temporalio/common';
import type { MapSpec, NodeSpec, PipelineSpec, StepSpec } from '../../pipeline/spec';
import type { Compensable } from '../../workflows/run/saga';
import type { CompensationOutcome, PipelineFailureDetails } from '../../workflows/run-types';
import { MAP_INPUT_NOT_ARRAY, PIPELINE_FAILED } from '../../workflows/failure-types';
import { AttemptsFailed, callActivity, type CallContext } from './activity-attempts';
import { RunCancelled } from './virtual-clock';

/*
 * A pipeline run's body in virtual time, node by node as the workflow's interpreter runs it
 * (src/workflows/run/interpreter.ts, run-nodes.ts, saga.ts): each node gets the previous node's output;
 * parallel branches all run to their end and the first real failure in branch order is reported; a map runs
 * `concurrency` items at a time and starts no new item after a failure; a sleep waits and passes its input
 * on. A step that fails for good (or the run's timeout, or a cancellation) runs the saga: the completed
 * steps' compensations, last completed first, each with its own retry policy, not cancellable; then the
 * onFailure hook (one attempt, its failure ignored); then the run fails with PipelineFailed and the same
 * details. Node kinds that need a server (waitFor, child pipelines, chains) are refused before any run
 * (job-check.ts).
 */

/** A node's failure, as the interpreter's StepFailed. */
class NodeFailed extends Error {
  constructor(
    readonly stepId: string,
    readonly input: unknown[],
    readonly failure: AttemptsFailed,
  ) {
    super(failure.message);
  }
}

/** How a run body ended. */
export type BodyEnd =
  | { status: 'completed'; output: unknown; completed: string[] }
  | { status: 'failed'; details: PipelineFailureDetails; error: ApplicationFailure }
  | { status: 'cancelled'; compensations: CompensationOutcome[] };

interface Done {
  step: Compensable;
  stepId: string;
  args: unknown[];
}

/** Runs the spec's nodes on `args` until it ends: completed, failed (after its saga) or cancelled. */
export async function runSpec(spec: PipelineSpec, args: unknown[], ctx: CallContext): Promise<BodyEnd> {
  const saga: Done[] = [];
  const completed: string[] = [];
  const nodeInputs: Record<string, unknown[]> = {};
  let currentNode = spec.steps[0]!.id;
  let timedOut = false;
  if (spec.timeoutMs !== undefined) {
    ctx.control.clock.at(ctx.control.clock.now() + spec.timeoutMs, () => {
      if (ctx.control.ended) return;
      timedOut = true;
      ctx.control.end('timed-out');
    });
  }
  const activity = async (step: StepSpec | MapSpec, stepId: string, input: unknown[], own: boolean) => {
    try {
      const output = await callActivity(ctx, step, step.activity, stepId, input);
      if (own) completed.push(stepId);
      if (step.compensate) saga.push({ step, stepId, args: [...input, output] });
      return output;
    } catch (err) {
      if (err instanceof AttemptsFailed) throw new NodeFailed(stepId, input, err);
      throw err;
    }
  };
  const runNode = async (node: NodeSpec, input: unknown[]): Promise<unknown> => {
    switch (node.kind) {
      case 'step':
        return activity(node, node.id, input, true);
      case 'parallel': {
        const settled = await Promise.allSettled(
          node.branches.map(async (branch) => {
            let current = input;
            for (const step of branch) current = [await activity(step, step.id, current, true)];
            return current[0];
          }),
        );
        const failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
        if (failures.length > 0) {
          throw failures.find((f) => f instanceof NodeFailed && !f.failure.cancelled) ?? failures[0];
        }
        return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value);
      }
      case 'map':
        return runMap(node, input);
      case 'sleep':
        try {
          await ctx.control.sleep(node.durationMs);
        } catch (err) {
          if (err instanceof RunCancelled)
            throw new NodeFailed(node.id, input, new AttemptsFailed(0, err, err));
          throw err;
        }
        completed.push(node.id);
        return input[0];
      default:
        throw new Error(
          `node kind ${node.kind} reached the virtual-time runner: job-check.ts should refuse it`,
        );
    }
  };
  const runMap = async (node: MapSpec, input: unknown[]): Promise<unknown[]> => {
    const items = input[0];
    if (!Array.isArray(items)) {
      const error = ApplicationFailure.create({
        type: MAP_INPUT_NOT_ARRAY,
        message: `map step "${node.id}" needs an array as input, got ${items === null ? 'null' : typeof items}`,
        nonRetryable: true,
      });
      throw new NodeFailed(node.id, input, new AttemptsFailed(0, error, undefined));
    }
    const results: unknown[] = new Array(items.length);
    let next = 0;
    let failure: unknown;
    const loop = async () => {
      while (failure === undefined && next < items.length) {
        const i = next++;
        try {
          results[i] = await activity(node, `${node.id}[${i}]`, [items[i]], false);
        } catch (err) {
          failure ??= err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(node.concurrency, items.length) }, loop));
    if (failure !== undefined) throw failure;
    completed.push(node.id);
    return results;
  };

  try {
    await ctx.control.task();
    let current = args;
    for (const node of spec.steps) {
      currentNode = node.id;
      nodeInputs[node.id] = current;
      current = [await runNode(node, current)];
    }
    return { status: 'completed', output: current[0], completed };
  } catch (err) {
    const failed = err instanceof NodeFailed ? err : undefined;
    const cancelledBy = failed ? failed.failure.cancelled : err instanceof RunCancelled ? err : undefined;
    if (!failed && !cancelledBy) throw err;
    if (ctx.control.ended === 'terminated') return { status: 'cancelled', compensations: [] };
    const compensations = await compensate(saga, ctx);
    if (cancelledBy && !timedOut) return { status: 'cancelled', compensations };
    const root = failed && !cancelledBy ? failed.failure.error : undefined;
    const message = timedOut
      ? `the run timed out after ${spec.timeoutMs} ms`
      : (root?.message ?? 'cancelled');
    const errorType = root ? (root instanceof ApplicationFailure ? root.type : root.name) : undefined;
    const failedStep = failed?.stepId ?? currentNode;
    const details: PipelineFailureDetails = {
      pipeline: spec.name,
      failedStep,
      ...(failed && failed.failure.attempts > 0 ? { attempts: failed.failure.attempts } : {}),
      input: failed ? failed.input : nodeInputs[currentNode],
      message,
      ...(errorType && !timedOut ? { errorType } : {}),
      completedSteps: completed,
      failedNode: currentNode,
      nodeInputs,
      compensations,
      ...(timedOut ? { timedOut: true } : {}),
    };
    if (spec.onFailure) await failureHook(spec.onFailure, details, ctx);
    const error = ApplicationFailure.create({
      type: PIPELINE_FAILED,
      message: `pipeline "${spec.name}" failed at step "${failedStep}": ${message}`,
      nonRetryable: true,
      details: [details],
    });
    return { status: 'failed', details, error };
  }
}

/** The saga: compensations of the completed steps, last first, not cancellable; a failed one does not stop the rest. */
async function compensate(saga: readonly Done[], ctx: CallContext): Promise<CompensationOutcome[]> {
  const out: CompensationOutcome[] = [];
  const shielded = { ...ctx, shielded: true };
  for (const { step, stepId, args } of [...saga].reverse()) {
    const activity = step.compensate!;
    try {
      await callActivity(
        shielded,
        step,
        activity,
        `${stepId}:compensate`,
        args,
        step.compensateRetry ?? step.retry,
      );
      out.push({ stepId, activity, status: 'completed' });
    } catch (err) {
      if (!(err instanceof AttemptsFailed) || err.cancelled) throw err;
      out.push({ stepId, activity, status: 'failed', error: err.error.message, attempts: err.attempts });
    }
  }
  return out;
}

/** The pipeline's onFailure hook: one attempt of up to a minute, its failure never the run's. */
async function failureHook(name: string, details: PipelineFailureDetails, ctx: CallContext): Promise<void> {
  try {
    await callActivity({ ...ctx, shielded: true }, { startToCloseMs: 60_000 }, name, 'onFailure', [details], {
      maximumAttempts: 1,
    });
  } catch (err) {
    if (!(err instanceof AttemptsFailed)) throw err;
  }
}

import {
  ApplicationFailure,
  CancellationScope,
  defineQuery,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { PipelineSpec } from '../../pipeline/spec';
import { PIPELINE_SPEC_VERSION } from '../../pipeline/version';
import { ProgressTracker } from './progress';
import { reportRunFinished } from './run-finished';
import { runNode } from './run-nodes';
import { SignalMailbox, StepFailed } from './run-context';
import { PIPELINE_FAILED, PIPELINE_INPUT_INVALID } from '../failure-types';
import {
  ON_FAILURE_ONCE_PATCH,
  PROGRESS_QUERY,
  type PipelineFailureDetails,
  type PipelineProgress,
  type PipelineRunInput,
  type PipelineRunResult,
} from '../run-types';
import { Saga } from './saga';
import { rootFailure } from './step-options';
import { startChainedRuns } from './child-runs';

export const progressQuery = defineQuery<PipelineProgress>(PROGRESS_QUERY);

/** How long the failure hook may take: it runs after the saga, when the run is already lost. */
const ON_FAILURE_TIMEOUT_MS = 60_000;

/**
 * The pipeline interpreter: runs the {@link PipelineRunInput} it is given, in the workflow that calls it
 * (`pipelineWorkflow`, the only one registered). Its query name and the input shape are persisted (see
 * run-types.ts).
 */
export async function interpretPipeline(
  input: PipelineRunInput,
  /** Schedule lag, as the job guards measured it in the first workflow task (scheduled runs only). */
  lagMs?: number,
): Promise<PipelineRunResult> {
  const { spec } = input;
  const startedAt = Date.now();
  const progress = new ProgressTracker(spec.name);
  setHandler(progressQuery, () => progress.snapshot());

  const finish = (status: 'completed' | 'failed', extra: { failedStep?: string } = {}) =>
    reportRunFinished(input, { status, durationMs: Date.now() - startedAt, lagMs, ...extra });

  // Shape kept flat on purpose: parse input -> run body -> finish, so that guards (e.g. the scheduler's
  // misfire / per-job semaphore) can wrap the body with a few lines before `try` and in a `finally`.
  try {
    if (input.chain?.delayMs !== undefined) await chainDelay(input.chain.delayMs, progress);
    const output = await runBody(input, progress);
    const chained = spec.then ? await startChainedRuns(spec, output) : undefined;
    progress.end('completed');
    finish('completed');
    return { status: 'completed', output, steps: progress.state.completed, ...(chained ? { chained } : {}) };
  } catch (err) {
    if (!isCancellation(err)) {
      finish('failed', err instanceof ApplicationFailure ? failedStepOf(err) : {});
    }
    throw err;
  }
}

/** The wait of a chained run started with a `delay`: a durable timer before its first node. */
async function chainDelay(delayMs: number, progress: ProgressTracker): Promise<void> {
  const step = 'then-delay';
  progress.waiting({ step, kind: 'sleep', until: new Date(Date.now() + delayMs).toISOString() });
  await sleep(delayMs, { summary: 'delay of a chained run' });
  progress.doneWaiting(step);
}

function failedStepOf(err: ApplicationFailure): { failedStep?: string } {
  const details = err.details?.[0] as PipelineFailureDetails | undefined;
  return err.type === PIPELINE_FAILED && details ? { failedStep: details.failedStep } : {};
}

/**
 * Runs the nodes (from the redrive point, if any) under the whole-run timeout; on a failure for good,
 * a timeout or a cancellation, runs the saga, then the failure hook, then fails with `PipelineFailed`
 * (a cancelled run ends cancelled after its saga).
 */
function runBody(input: PipelineRunInput, progress: ProgressTracker): Promise<unknown> {
  const { spec } = input;
  const nodes = nodesToRun(input);
  const saga = new Saga();
  // Before any node runs: a signal sent early is kept for the waitFor node that takes it.
  const mailbox = SignalMailbox.forSpec(spec);
  const nodeInputs: Record<string, unknown[]> = {};
  let currentNode = nodes[0]!.id;
  let timedOut = false;

  // A timer of our own rather than only Temporal's execution timeout: a run that times out is rolled
  // back and lands in the dead letters. The execution timeout stays as a backstop (see run-start.ts).
  // Without a run timeout the body runs in the workflow's own scope: a scope of its own creates promises
  // (each one a stack capture by the SDK's promise hook) and no command, so leaving it out is replay-safe.
  let scope: CancellationScope | undefined;
  if (spec.timeoutMs !== undefined) {
    const own = (scope = new CancellationScope());
    void sleep(spec.timeoutMs).then(
      () => {
        timedOut = true;
        own.cancel();
      },
      () => undefined, // the run was cancelled or ended: nothing to time out
    );
  }
  const body = async () => {
    let current = input.args;
    for (const node of nodes) {
      currentNode = node.id;
      nodeInputs[node.id] = current;
      current = [await runNode(node, current, { saga, progress, mailbox })];
    }
    return current[0];
  };

  // A `catch` rather than an async frame with try/await: a promise fewer per run (see runNode).
  return (scope ? scope.run(body) : body()).catch(async (err: unknown) => {
    if (!(err instanceof StepFailed) && !isCancellation(err)) throw err;
    progress.end('compensating');
    const compensations = await saga.compensate(progress);
    const cancelled = err instanceof StepFailed ? err.cancelled : true;
    if (cancelled && !timedOut) {
      progress.end('cancelled');
      throw err instanceof StepFailed ? err.error : err;
    }
    const root = rootFailure(err instanceof StepFailed ? err.error : err);
    const message = timedOut ? `the run timed out after ${spec.timeoutMs} ms` : root.message;
    const failedStep = err instanceof StepFailed ? err.stepId : currentNode;
    const attempts = err instanceof StepFailed ? err.attempts : undefined;
    const details: PipelineFailureDetails = {
      pipeline: spec.name,
      failedStep,
      ...(attempts !== undefined ? { attempts } : {}),
      input: err instanceof StepFailed ? err.input : nodeInputs[currentNode],
      message,
      ...(root.type && !timedOut ? { errorType: root.type } : {}),
      completedSteps: progress.completedIds,
      failedNode: currentNode,
      nodeInputs,
      compensations,
      ...(timedOut ? { timedOut: true } : {}),
    };
    if (spec.onFailure) await runFailureHook(spec, details);
    progress.end('failed');
    throw ApplicationFailure.create({
      type: PIPELINE_FAILED,
      message: `pipeline "${spec.name}" failed at step "${failedStep}": ${message}`,
      nonRetryable: true,
      details: [details],
      ...(err instanceof StepFailed && err.error instanceof Error ? { cause: err.error } : {}),
    });
  });
}

/** The nodes this run executes: all of them, or those from the redrive point on. */
function nodesToRun(input: PipelineRunInput): PipelineSpec['steps'] {
  const { spec } = input;
  // The input was validated when the run started; only a spec from a newer release can surprise us here.
  const version: unknown = spec.version;
  if (version !== PIPELINE_SPEC_VERSION) {
    throw ApplicationFailure.create({
      type: PIPELINE_INPUT_INVALID,
      message: `pipeline spec version ${String(version)} is not supported by this worker (it reads version ${PIPELINE_SPEC_VERSION})`,
      nonRetryable: true,
    });
  }
  if (!input.redrive) return spec.steps;
  const from = spec.steps.findIndex((n) => n.id === input.redrive!.fromStep);
  if (from < 0) {
    throw ApplicationFailure.create({
      type: PIPELINE_INPUT_INVALID,
      message: `cannot redrive from step "${input.redrive.fromStep}": pipeline "${spec.name}" has no such top-level step`,
      nonRetryable: true,
    });
  }
  return spec.steps.slice(from);
}

/**
 * The failure hook is best effort: one attempt that cannot be cancelled, whose own failure is logged and
 * never hides the run's. (Runs scheduled before {@link ON_FAILURE_ONCE_PATCH} gave it three silent attempts.)
 */
async function runFailureHook(spec: PipelineSpec, details: PipelineFailureDetails): Promise<void> {
  const once = patched(ON_FAILURE_ONCE_PATCH);
  const hook = proxyActivities<Record<string, (d: PipelineFailureDetails) => Promise<unknown>>>({
    startToCloseTimeout: ON_FAILURE_TIMEOUT_MS,
    retry: { maximumAttempts: once ? 1 : 3 },
    activityId: 'onFailure',
    // A hook served elsewhere (newer than every recorded run, which leaves the run's own queue).
    ...(spec.onFailureTaskQueue !== undefined ? { taskQueue: spec.onFailureTaskQueue } : {}),
  })[spec.onFailure!]!;
  await CancellationScope.nonCancellable(() => hook(details)).catch((err: unknown) => {
    const root = rootFailure(err);
    log.warn('onFailure hook failed', {
      pipeline: spec.name,
      onFailure: spec.onFailure,
      failedStep: details.failedStep,
      error: root.message,
      ...(root.type ? { errorType: root.type } : {}),
    });
  });
}

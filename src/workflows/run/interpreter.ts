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
import { activityDone, activityFailed, runNode, startActivity } from './run-nodes';
import { SignalMailbox, StepFailed, type RunContext } from './run-context';
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
    const body = prepareBody(input, progress);
    let output: unknown;
    try {
      if (body.scope) {
        output = await body.scope.run(() => runNodes(body));
      } else {
        // The loop of runNodes, in this frame rather than in a function of its own: three promises fewer
        // per run (the function's, the await of it and its `catch`), each a stack capture by the SDK's
        // promise hook; and a top-level step's activity awaited here, a promise fewer per step. The commands,
        // their order and ids are the same, so recorded runs replay unchanged.
        let current = input.args;
        for (const node of body.nodes) {
          body.currentNode = node.id;
          body.nodeInputs[node.id] = current;
          if (node.kind !== 'step') {
            current = [await runNode(node, current, body.ctx)];
            continue;
          }
          const started = startActivity(node, node.id, current, body.ctx);
          let stepOutput: unknown;
          try {
            stepOutput = await started.pending;
          } catch (err) {
            throw activityFailed(node, node.id, current, err, body.ctx);
          }
          current = [activityDone(node, node.id, current, stepOutput, started.at, body.ctx, true)];
        }
        output = current[0];
      }
    } catch (err) {
      output = await bodyFailed(body, err);
    }
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

/** What running a run's nodes needs and leaves: the nodes, their context, where the run got to. */
interface Body {
  input: PipelineRunInput;
  nodes: PipelineSpec['steps'];
  ctx: RunContext;
  /** Input of every top-level node that started, by id. */
  nodeInputs: Record<string, unknown[]>;
  currentNode: string;
  timedOut: boolean;
  /** The scope the nodes run in, for a run with a timeout (its timer cancels it); else the workflow's own. */
  scope: CancellationScope | undefined;
}

/**
 * Before any node runs: the nodes (from the redrive point, if any), the saga, the mailbox (a signal sent
 * early is kept for the waitFor node that takes it), and the whole-run timeout's timer.
 */
function prepareBody(input: PipelineRunInput, progress: ProgressTracker): Body {
  const { spec } = input;
  const nodes = nodesToRun(input);
  const saga = new Saga();
  const mailbox = SignalMailbox.forSpec(spec);
  const body: Body = {
    input,
    nodes,
    ctx: { saga, progress, mailbox },
    nodeInputs: {},
    currentNode: nodes[0]!.id,
    timedOut: false,
    scope: undefined,
  };
  // A timer of our own rather than only Temporal's execution timeout: a run that times out is rolled
  // back and lands in the dead letters. The execution timeout stays as a backstop (see run-start.ts).
  // Without a run timeout the body runs in the workflow's own scope: a scope of its own creates promises
  // (each one a stack capture by the SDK's promise hook) and no command, so leaving it out is replay-safe.
  if (spec.timeoutMs !== undefined) {
    const own = (body.scope = new CancellationScope());
    void sleep(spec.timeoutMs).then(
      () => {
        body.timedOut = true;
        own.cancel();
      },
      () => undefined, // the run was cancelled or ended: nothing to time out
    );
  }
  return body;
}

/** The nodes one after the other (a run with a timeout runs them so in its scope; see interpretPipeline). */
async function runNodes(body: Body): Promise<unknown> {
  let current = body.input.args;
  for (const node of body.nodes) {
    body.currentNode = node.id;
    body.nodeInputs[node.id] = current;
    current = [await runNode(node, current, body.ctx)];
  }
  return current[0];
}

/**
 * The nodes failed: on a failure for good, a timeout or a cancellation, runs the saga, then the failure
 * hook, then fails with `PipelineFailed` (a cancelled run ends cancelled after its saga); anything else
 * is thrown as it is.
 */
async function bodyFailed(body: Body, err: unknown): Promise<never> {
  if (!(err instanceof StepFailed) && !isCancellation(err)) throw err;
  const { input, ctx, currentNode, nodeInputs } = body;
  const { spec } = input;
  const { progress, saga } = ctx;
  progress.end('compensating');
  const compensations = await saga.compensate(progress);
  // Read after the saga: the run's timer may fire while it compensates.
  const { timedOut } = body;
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

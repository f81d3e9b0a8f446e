import {
  ActivityFailure,
  ApplicationFailure,
  defineQuery,
  proxyActivities,
  proxySinks,
  setHandler,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import { RetryState, type RetryPolicy } from '@temporalio/common';
import type { RetrySpec, StepSpec } from '../pipeline/spec';
import {
  PIPELINE_FAILED,
  PROGRESS_QUERY,
  type PipelineFailureDetails,
  type PipelineProgress,
  type PipelineRunInput,
  type PipelineRunResult,
} from './run-types';
import type { TflowSinks } from './sinks';

/** Default attempt timeout of a step that sets none: long enough for real work, short enough to notice a hang. */
const DEFAULT_START_TO_CLOSE_MS = 10 * 60_000;

export const progressQuery = defineQuery<PipelineProgress>(PROGRESS_QUERY);

const { tflow } = proxySinks<TflowSinks>();

function toRetryPolicy(retry: RetrySpec | undefined): RetryPolicy | undefined {
  if (!retry) return undefined;
  return {
    ...(retry.maximumAttempts !== undefined ? { maximumAttempts: retry.maximumAttempts } : {}),
    ...(retry.initialIntervalMs !== undefined ? { initialInterval: retry.initialIntervalMs } : {}),
    ...(retry.backoffCoefficient !== undefined ? { backoffCoefficient: retry.backoffCoefficient } : {}),
    ...(retry.maximumIntervalMs !== undefined ? { maximumInterval: retry.maximumIntervalMs } : {}),
    ...(retry.nonRetryableErrorTypes !== undefined
      ? { nonRetryableErrorTypes: retry.nonRetryableErrorTypes }
      : {}),
  };
}

function activityOptions(step: StepSpec): ActivityOptions {
  const retry = toRetryPolicy(step.retry);
  return {
    startToCloseTimeout: step.startToCloseMs ?? DEFAULT_START_TO_CLOSE_MS,
    ...(step.scheduleToCloseMs !== undefined ? { scheduleToCloseTimeout: step.scheduleToCloseMs } : {}),
    ...(step.heartbeatMs !== undefined ? { heartbeatTimeout: step.heartbeatMs } : {}),
    ...(retry ? { retry } : {}),
    activityId: step.id,
  };
}

async function runStep(step: StepSpec, input: unknown[]): Promise<unknown> {
  const acts = proxyActivities<Record<string, (...args: unknown[]) => Promise<unknown>>>(
    activityOptions(step),
  );
  const fn = acts[step.activity];
  if (!fn) throw ApplicationFailure.nonRetryable(`no activity proxy for ${step.activity}`);
  return fn(...input);
}

/**
 * Attempts a step made before failing for good, when the failure says so: a step that exhausted its
 * retry policy made exactly `maximumAttempts`. Other failures (non-retryable, timeouts) leave it unknown.
 */
function attemptsOf(err: unknown, step: StepSpec): number | undefined {
  if (err instanceof ActivityFailure && err.retryState === RetryState.MAXIMUM_ATTEMPTS_REACHED) {
    return step.retry?.maximumAttempts;
  }
  return undefined;
}

/**
 * The one generic workflow: interprets the {@link PipelineRunInput} it is started with. Its type name,
 * query name and input shape are persisted (see run-types.ts).
 */
export async function pipelineWorkflow(input: PipelineRunInput): Promise<PipelineRunResult> {
  const { spec } = input;
  const info = workflowInfo();
  const startedAt = Date.now();
  const progress: PipelineProgress = {
    pipeline: spec.name,
    status: 'running',
    currentStep: null,
    completed: [],
  };
  setHandler(progressQuery, () => progress);

  const finish = (status: 'completed' | 'failed' | 'skipped', extra: { failedStep?: string } = {}) => {
    tflow.runFinished({
      pipeline: spec.name,
      ...(input.job ? { jobId: input.job.jobId } : {}),
      workflowId: info.workflowId,
      runId: info.runId,
      status,
      durationMs: Date.now() - startedAt,
      ...extra,
    });
  };

  let current: unknown[] = input.args;
  for (const step of spec.steps) {
    progress.currentStep = step.id;
    const stepStart = Date.now();
    try {
      const output = await runStep(step, current);
      current = [output];
    } catch (err) {
      progress.status = 'failed';
      progress.currentStep = null;
      finish('failed', { failedStep: step.id });
      const details: PipelineFailureDetails = {
        pipeline: spec.name,
        failedStep: step.id,
        ...(attemptsOf(err, step) !== undefined ? { attempts: attemptsOf(err, step) } : {}),
        input: current,
        message:
          err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err),
        completedSteps: progress.completed.map((s) => s.id),
      };
      throw ApplicationFailure.create({
        type: PIPELINE_FAILED,
        message: `pipeline "${spec.name}" failed at step "${step.id}": ${details.message}`,
        nonRetryable: true,
        details: [details],
        cause: err instanceof Error ? err : undefined,
      });
    }
    progress.completed.push({ id: step.id, durationMs: Date.now() - stepStart });
  }
  progress.status = 'completed';
  progress.currentStep = null;
  finish('completed');
  return { status: 'completed', output: current[0], steps: progress.completed };
}

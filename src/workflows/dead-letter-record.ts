/*
 * What a pipeline run does with the dead-letter queue (see dead-letter-defs.ts): a run that fails with
 * `PipelineFailed` files its letter with a keeper; a redriven run that completes tells the letter's keeper
 * it is done. Both behind the `tflow-dead-letter-keeper` patch, so that runs recorded before it replay.
 */
import {
  ApplicationFailure,
  CancellationScope,
  getExternalWorkflowHandle,
  log,
  patched,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import {
  DEAD_LETTER_PATCH,
  deadLetterRedrivenSignal,
  deadLetterWorkflowId,
  type DeadLetterEntry,
  type DeadLetterActivities,
} from './dead-letter-defs';
import { PIPELINE_FAILED } from './failure-types';
import type { PipelineFailureDetails, PipelineRunInput, PipelineRunResult } from './run-types';
import { SCHEDULED_START_TIME_ATTRIBUTE } from './search-attributes';

// Filing the letter must not be lost: retried for up to a day (an outage of the server or the queue).
const { tflowFileDeadLetter } = proxyActivities<DeadLetterActivities>({
  startToCloseTimeout: '30s',
  scheduleToCloseTimeout: '1d',
  retry: { initialInterval: '1s', maximumInterval: '1m' },
  activityId: 'tflow-dead-letter',
});

/** The letter a run belongs to: the one it redrives, or its own workflow id. */
export function letterIdOf(input: PipelineRunInput): string {
  return input.redrive?.deadLetter ?? workflowInfo().workflowId;
}

/** Runs a pipeline run's body, then does its part for the dead-letter queue. */
export function withDeadLetter(
  input: PipelineRunInput,
  run: () => Promise<PipelineRunResult>,
): Promise<PipelineRunResult> {
  // One `then` rather than an async frame with an await: each promise a workflow creates costs the SDK a
  // stack capture (its promise hook), and this wraps every run.
  return run().then(
    (result) => {
      // Only runs redriven from a queued letter carry `deadLetter`: no recorded history has it.
      const letter = input.redrive?.deadLetter;
      if (result.status === 'completed' && letter && patched(DEAD_LETTER_PATCH)) {
        return markRedriven(letter).then(() => result);
      }
      return result;
    },
    (err: unknown) => {
      const details = pipelineFailureDetails(err);
      if (!details || !patched(DEAD_LETTER_PATCH)) throw err;
      return fileDeadLetter(input, details).then(() => {
        throw err;
      });
    },
  );
}

function pipelineFailureDetails(err: unknown): PipelineFailureDetails | undefined {
  if (!(err instanceof ApplicationFailure) || err.type !== PIPELINE_FAILED) return undefined;
  return err.details?.[0] as PipelineFailureDetails | undefined;
}

async function fileDeadLetter(input: PipelineRunInput, details: PipelineFailureDetails): Promise<void> {
  const info = workflowInfo();
  const nominal = info.typedSearchAttributes.get(SCHEDULED_START_TIME_ATTRIBUTE);
  const entry: DeadLetterEntry = {
    letterId: letterIdOf(input),
    workflowId: info.workflowId,
    runId: info.runId,
    taskQueue: info.taskQueue,
    startedAt: info.runStartTime.toISOString(),
    failedAt: new Date().toISOString(),
    input,
    details,
    ...(nominal ? { nominalTime: nominal.toISOString() } : {}),
    failures: 1,
  };
  try {
    await CancellationScope.nonCancellable(() => tflowFileDeadLetter(entry));
  } catch (err) {
    // Only after a day of retries: the failure itself stays in the run's result (and in visibility).
    log.error('could not file the dead letter', { letterId: entry.letterId, error: String(err) });
  }
}

async function markRedriven(letterId: string): Promise<void> {
  const info = workflowInfo();
  try {
    await CancellationScope.nonCancellable(() =>
      getExternalWorkflowHandle(deadLetterWorkflowId(letterId)).signal(deadLetterRedrivenSignal, {
        workflowId: info.workflowId,
        runId: info.runId,
      }),
    );
  } catch (err) {
    // The letter was discarded (or redriven by another run) meanwhile: nothing left to remove.
    log.warn('could not mark the dead letter redriven', { letterId, error: String(err) });
  }
}

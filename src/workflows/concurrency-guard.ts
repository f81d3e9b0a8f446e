/*
 * A pipeline's concurrency key (`pipeline(name, { concurrencyKey, maxConcurrent })`): the run holds a slot
 * of its key's semaphore (job-semaphore-workflow.ts) for its whole body, waiting in line when the key is
 * full. Runs without a key (every run recorded before the option existed) issue no command here.
 */
import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  concurrencySemaphoreId,
  releaseSlotSignal,
  slotGrantedSignal,
  type SemaphoreActivities,
} from './job-semaphore-defs';
import type { PipelineRunInput, PipelineRunResult } from './run-types';

const { tflowQueueForSlot } = proxyActivities<SemaphoreActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 10, initialInterval: '200ms', maximumInterval: '5s' },
});

/** Runs `run` holding a slot of the run's concurrency key, if it has one. */
export function withConcurrencySlot(
  input: PipelineRunInput,
  run: () => Promise<PipelineRunResult>,
): Promise<PipelineRunResult> {
  // No async frame for runs without a key (most): see runWithJobGuards.
  return input.concurrency ? withSlot(input, input.concurrency, run) : run();
}

async function withSlot(
  input: PipelineRunInput,
  concurrency: NonNullable<PipelineRunInput['concurrency']>,
  run: () => Promise<PipelineRunResult>,
): Promise<PipelineRunResult> {
  const semaphoreId = concurrencySemaphoreId(input.spec.name, concurrency.key);
  const { workflowId, runId } = workflowInfo();
  let granted = false;
  setHandler(slotGrantedSignal, () => {
    granted = true;
  });
  try {
    const answer = await tflowQueueForSlot({ semaphoreId, max: concurrency.max, workflowId, runId });
    if (answer === 'queued') await condition(() => granted);
    return await run();
  } finally {
    // Also when cancelled while waiting: leaves the queue (or gives back the slot it was granted).
    await CancellationScope.nonCancellable(async () => {
      try {
        await getExternalWorkflowHandle(semaphoreId).signal(releaseSlotSignal, { workflowId, runId });
      } catch (err) {
        log.warn('could not release the concurrency slot', { semaphoreId, error: String(err) });
      }
    });
  }
}

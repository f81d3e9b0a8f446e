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
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  concurrencySemaphoreId,
  releaseSlotSignal,
  SLOT_REASK_PATCH,
  slotGrantedSignal,
  type SemaphoreActivities,
  type SlotRequest,
} from './job-semaphore-defs';
import type { PipelineRunInput, PipelineRunResult } from './run-types';

const { tflowQueueForSlot } = proxyActivities<SemaphoreActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 10, initialInterval: '200ms', maximumInterval: '5s' },
});

/**
 * How long a queued run waits for `slotGranted` before asking its semaphore again: a bound on how long a
 * run can wait for a grant that will never come (its semaphore was terminated or reset by hand).
 */
const SLOT_REASK_MS = 60_000;

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
    const request = { semaphoreId, max: concurrency.max, workflowId, runId };
    if ((await tflowQueueForSlot(request)) === 'queued') await waitForGrant(request, () => granted);
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

/**
 * Waits until the semaphore grants the run a slot. Patched: never for good, but asking again every
 * {@link SLOT_REASK_MS} (see SLOT_REASK_PATCH): asking is idempotent, so a run still in line keeps its
 * place, and a run its semaphore no longer knows is queued again instead of waiting for ever.
 */
async function waitForGrant(
  request: SlotRequest & { semaphoreId: string },
  granted: () => boolean,
): Promise<void> {
  if (!patched(SLOT_REASK_PATCH)) {
    await condition(granted);
    return;
  }
  while (!(await condition(granted, SLOT_REASK_MS))) {
    if ((await tflowQueueForSlot(request)) === 'granted') return;
  }
}

/*
 * A pipeline's concurrency key (`pipeline(name, { concurrencyKey, maxConcurrent, maxConcurrentTotal,
 * whenFull })`): the run holds a slot of its key's semaphore (semaphore-workflow.ts; the pipeline's one
 * semaphore with a total) for its whole body, waiting in line when full, or, as `whenFull` says, ending
 * skipped or cancelled. Runs without a key (every run recorded before the option existed) issue no command
 * here.
 */
import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  log,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  concurrencySemaphoreId,
  concurrencyTotalSemaphoreId,
  releaseSlotSignal,
  SLOT_REASK_PATCH,
  slotGrantedSignal,
  type SemaphoreActivities,
  type SlotRequest,
} from '../semaphore/semaphore-defs';
import type { PipelineProgress, PipelineRunInput, PipelineRunResult } from '../run-types';
import { skippedOutcome } from '../outcomes';
import { OUTCOME_SEARCH_ATTRIBUTE } from '../search-attributes';
import { showProgress } from '../run/current-details';
import { reportRunFinished } from '../run/run-finished';
import { progressQuery } from '../run/interpreter';
import { waitForCancelledSteps } from '../run/step-options';

/**
 * The ask of a concurrency key's semaphore, retried until it is answered: a run waits for its semaphore
 * rather than failing before its first step. Capped keys (`maxConcurrentTotal`, `whenFull`) did since
 * c769c59 (every key of such a pipeline asks one workflow, which the server lets have 10 updates in flight,
 * so a burst of hundreds of runs on a loaded machine used up 10 attempts); plain keys had 10 attempts, and
 * the checker's I4 saw keyed runs fail so while the semaphore's worker was down and the server was being
 * killed for minutes. Retry options are not compared on replay.
 */
const { tflowQueueForSlot: askForSlot } = proxyActivities<SemaphoreActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '200ms', maximumInterval: '5s' },
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
  const { key, max, total, whenFull } = concurrency;
  const semaphoreId =
    total === undefined
      ? concurrencySemaphoreId(input.spec.name, key)
      : concurrencyTotalSemaphoreId(input.spec.name);
  const { workflowId, runId } = workflowInfo();
  // Options newer than every recorded run: its slot is given back only once its steps have stopped.
  if (total !== undefined || whenFull) waitForCancelledSteps();
  let granted = false;
  setHandler(slotGrantedSignal, () => {
    granted = true;
  });
  try {
    // Fields absent unless set, so a run of a plain key asks exactly as before they existed.
    const request = {
      semaphoreId,
      max,
      workflowId,
      runId,
      ...(total !== undefined ? { key, total } : {}),
      ...(whenFull ? { whenFull } : {}),
    };
    const answer = await askForSlot(request);
    if (answer === 'refused') {
      if (whenFull === 'skip') return skippedFull(input);
      // cancel-newest: the activity asked the server to cancel this run before it answered.
      await condition(() => false);
    }
    if (answer === 'queued') await waitForGrant(request, () => granted);
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
    if ((await askForSlot(request)) === 'granted') return;
  }
}

/** A run refused a slot under `whenFull: 'skip'`: it ends skipped (reason `concurrency`), running no step. */
function skippedFull(input: PipelineRunInput): PipelineRunResult {
  const progress: PipelineProgress = {
    pipeline: input.spec.name,
    status: 'skipped',
    currentStep: null,
    completed: [],
  };
  setHandler(progressQuery, () => progress);
  showProgress(progress, 'concurrency');
  upsertSearchAttributes([{ key: OUTCOME_SEARCH_ATTRIBUTE, value: skippedOutcome('concurrency') }]);
  log.info('run skipped: its concurrency key is full', { key: input.concurrency?.key });
  reportRunFinished(input, {
    status: 'skipped',
    skipReason: 'concurrency',
    durationMs: 0,
    lagMs: undefined,
  });
  return { status: 'skipped', skipReason: 'concurrency', steps: [] };
}

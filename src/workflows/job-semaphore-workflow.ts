import {
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type * as schedulerActivities from '../activities/scheduler-activities';
import {
  acquireSlotUpdate,
  holdersQuery,
  releaseSlotSignal,
  type SemaphoreState,
  type SlotHolder,
} from './job-semaphore-defs';

/** How long an empty semaphore waits for a new request before it completes. */
const IDLE_MS = 5 * 60_000;
/** How often a full semaphore checks that its holders still run (a terminated run never releases). */
const LIVENESS_CHECK_MS = 60_000;

const { tflowLiveHolders } = proxyActivities<typeof schedulerActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5 },
});

const keyOf = (h: SlotHolder) => `${h.workflowId}/${h.runId}`;

/**
 * The per-job semaphore behind `maxInstances: N > 1`: a long-lived workflow per job id that grants at
 * most `max` slots. Runs ask through the `acquireSlot` update (with start, so the first run creates it),
 * give their slot back with the `releaseSlot` signal, and holders that died without releasing (a
 * terminated run) are found by asking Temporal whether they still run.
 */
export async function jobSemaphoreWorkflow(state: SemaphoreState = { holders: [] }): Promise<void> {
  const holders = new Map(state.holders.map((h) => [keyOf(h), h]));
  let changed = false;

  const pruneDead = async () => {
    const alive = new Set(await tflowLiveHolders([...holders.values()]));
    for (const [key, h] of holders) if (!alive.has(keyOf(h))) holders.delete(key);
  };

  setHandler(holdersQuery, () => [...holders.values()]);
  setHandler(releaseSlotSignal, (h) => {
    holders.delete(keyOf(h));
    changed = true;
  });
  setHandler(acquireSlotUpdate, async (req) => {
    changed = true;
    const holder = { workflowId: req.workflowId, runId: req.runId };
    if (holders.has(keyOf(holder))) return true;
    if (holders.size >= req.max) await pruneDead();
    // Re-checked after the await: other requests may have taken slots meanwhile.
    if (holders.has(keyOf(holder))) return true;
    if (holders.size >= req.max) return false;
    holders.set(keyOf(holder), holder);
    return true;
  });

  for (;;) {
    const woke = await condition(
      () => changed || workflowInfo().continueAsNewSuggested,
      holders.size === 0 ? IDLE_MS : LIVENESS_CHECK_MS,
    );
    changed = false;
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof jobSemaphoreWorkflow>({ holders: [...holders.values()] });
    }
    if (woke) continue;
    if (holders.size > 0) {
      await pruneDead();
      continue;
    }
    await condition(allHandlersFinished);
    if (holders.size === 0 && !changed) return;
  }
}

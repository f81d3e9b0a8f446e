import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  acquireSlotUpdate,
  holdersQuery,
  queueForSlotUpdate,
  releaseSlotSignal,
  slotGrantedSignal,
  waitingQuery,
  type SlotRequest,
  type SemaphoreState,
  type SlotHolder,
  type SemaphoreActivities,
} from './job-semaphore-defs';

/** How long an empty semaphore waits for a new request before it completes. */
const IDLE_MS = 5 * 60_000;
/** How often a full semaphore checks that its holders still run (a terminated run never releases). */
const LIVENESS_CHECK_MS = 60_000;

const { tflowLiveHolders } = proxyActivities<SemaphoreActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5 },
});

const keyOf = (h: SlotHolder) => `${h.workflowId}/${h.runId}`;

/**
 * The semaphore behind `maxInstances: N > 1` (one per job id) and behind a pipeline's `concurrencyKey`
 * (one per pipeline and key): a long-lived workflow that grants at most `max` slots. Runs ask through the
 * `acquireSlot` update (refused when full: the job's run is skipped) or the `queueForSlot` update (queued
 * when full: the run waits for `slotGranted`, first come first served), with start, so the first run
 * creates it; they give their slot back with the `releaseSlot` signal, and holders or waiters that died
 * without releasing (a terminated run) are found by asking Temporal whether they still run.
 */
export async function jobSemaphoreWorkflow(state: SemaphoreState = { holders: [] }): Promise<void> {
  const holders = new Map(state.holders.map((h) => [keyOf(h), h]));
  // Only concurrency keys queue; in a job's semaphore this stays empty, so its commands are unchanged.
  let waiting: SlotRequest[] = [...(state.waiting ?? [])];
  let changed = false;

  const grantWaiting = () => {
    while (waiting.length > 0 && holders.size < waiting[0]!.max) {
      const next = waiting.shift()!;
      const holder = { workflowId: next.workflowId, runId: next.runId };
      holders.set(keyOf(holder), holder);
      void getExternalWorkflowHandle(holder.workflowId, holder.runId)
        .signal(slotGrantedSignal)
        .catch((err: unknown) => {
          // The run is gone: the liveness check frees its slot.
          log.warn('could not tell a run it holds a slot', { ...holder, error: String(err) });
        });
    }
  };

  const pruneDead = async () => {
    const alive = new Set(await tflowLiveHolders([...holders.values(), ...waiting]));
    for (const [key, h] of holders) if (!alive.has(keyOf(h))) holders.delete(key);
    waiting = waiting.filter((w) => alive.has(keyOf(w)));
    grantWaiting();
  };

  setHandler(holdersQuery, () => [...holders.values()]);
  setHandler(waitingQuery, () => waiting.map((w) => ({ workflowId: w.workflowId, runId: w.runId })));
  setHandler(releaseSlotSignal, (h) => {
    holders.delete(keyOf(h));
    waiting = waiting.filter((w) => keyOf(w) !== keyOf(h));
    grantWaiting();
    changed = true;
  });
  setHandler(queueForSlotUpdate, async (req) => {
    changed = true;
    const holder = { workflowId: req.workflowId, runId: req.runId };
    if (holders.has(keyOf(holder))) return 'granted';
    if (waiting.some((w) => keyOf(w) === keyOf(holder))) return 'queued';
    if (waiting.length === 0 && holders.size >= req.max) await pruneDead();
    // Re-checked after the await: other requests may have taken slots or queued meanwhile.
    if (holders.has(keyOf(holder))) return 'granted';
    if (waiting.length === 0 && holders.size < req.max) {
      holders.set(keyOf(holder), holder);
      return 'granted';
    }
    if (!waiting.some((w) => keyOf(w) === keyOf(holder))) waiting.push(req);
    return 'queued';
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
      holders.size === 0 && waiting.length === 0 ? IDLE_MS : LIVENESS_CHECK_MS,
    );
    changed = false;
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof jobSemaphoreWorkflow>({
        holders: [...holders.values()],
        ...(waiting.length > 0 ? { waiting } : {}),
      });
    }
    if (woke) continue;
    if (holders.size > 0 || waiting.length > 0) {
      await pruneDead();
      continue;
    }
    await condition(allHandlersFinished);
    if (holders.size === 0 && waiting.length === 0 && !changed) return;
  }
}

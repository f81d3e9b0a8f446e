import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  acquireSlotUpdate,
  holdersQuery,
  queueForSlotUpdate,
  releaseSlotSignal,
  SEMAPHORE_LIVENESS_PATCH,
  SEMAPHORE_LOCAL_CHECK_PATCH,
  slotGrantedSignal,
  waitingQuery,
  type SlotRequest,
  type SemaphoreState,
  type SlotHolder,
  type SemaphoreActivities,
} from './semaphore-defs';

/** How long an empty semaphore waits for a new request before it completes. */
const IDLE_MS = 5 * 60_000;
/**
 * How often a semaphore with holders or waiters checks that they still run (a terminated run never
 * releases): counted from the previous check, so a dead holder is freed at most this long after it died,
 * plus the check itself (docs/scheduling.md and docs/pipelines.md promise it).
 */
const LIVENESS_CHECK_MS = 60_000;

const checkOptions = { startToCloseTimeout: '30s', retry: { maximumAttempts: 5 } } as const;
const { tflowLiveHolders } = proxyActivities<SemaphoreActivities>(checkOptions);
const local = proxyLocalActivities<SemaphoreActivities>(checkOptions);
/** The liveness check, as a local activity behind {@link SEMAPHORE_LOCAL_CHECK_PATCH}. */
const liveHolders = (asked: SlotHolder[]): Promise<string[]> =>
  patched(SEMAPHORE_LOCAL_CHECK_PATCH) ? local.tflowLiveHolders(asked) : tflowLiveHolders(asked);

const keyOf = (h: SlotHolder) => `${h.workflowId}/${h.runId}`;

/**
 * The semaphore behind `maxInstances: N > 1` (one per job id) and behind a pipeline's `concurrencyKey`
 * (one per pipeline and key): a long-lived workflow that grants at most `max` slots. Runs ask through the
 * `acquireSlot` update (refused when full: the job's run is skipped) or the `queueForSlot` update (queued
 * when full: the run waits for `slotGranted`, first come first served), with start, so the first run
 * creates it; they give their slot back with the `releaseSlot` signal, and holders or waiters that died
 * without releasing (a terminated run) are found by asking Temporal whether they still run: when a request
 * finds the semaphore full, and every {@link LIVENESS_CHECK_MS} while it has holders or waiters.
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

  // Before SEMAPHORE_LIVENESS_PATCH: drops every holder and waiter missing from the answer, including the
  // runs that asked, or were granted a slot, while the activity ran (they were never asked about).
  const pruneDeadUnpatched = async () => {
    const alive = new Set(await tflowLiveHolders([...holders.values(), ...waiting]));
    for (const [key, h] of holders) if (!alive.has(keyOf(h))) holders.delete(key);
    waiting = waiting.filter((w) => alive.has(keyOf(w)));
    grantWaiting();
  };

  let checkDueAt = state.livenessCheckDueAt ?? Date.now() + LIVENESS_CHECK_MS;
  let checking: Promise<void> | undefined;
  /**
   * Frees the runs it asked about that no longer run, and only those: a run found dead never runs again,
   * so it is dropped wherever it is now (a waiter granted meanwhile too), while runs that asked during the
   * check are kept. Without an answer (the activity failed) it frees nothing until the next check.
   */
  const checkLiveness = async () => {
    const asked = [...holders.values(), ...waiting];
    checkDueAt = Date.now() + LIVENESS_CHECK_MS;
    let alive: Set<string>;
    try {
      alive = new Set(await liveHolders(asked));
    } catch (err) {
      log.warn('could not check which slot holders still run; the next check frees them', {
        error: String(err),
      });
      return;
    }
    const dead = new Set(asked.map(keyOf).filter((k) => !alive.has(k)));
    if (dead.size === 0) return;
    for (const k of dead) holders.delete(k);
    waiting = waiting.filter((w) => !dead.has(keyOf(w)));
    grantWaiting();
  };
  // One check at a time: requests that find the semaphore full while one runs wait for its answer.
  const pruneDead = (): Promise<void> => {
    if (!patched(SEMAPHORE_LIVENESS_PATCH)) return pruneDeadUnpatched();
    checking ??= checkLiveness().finally(() => {
      checking = undefined;
    });
    return checking;
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
    const checked = patched(SEMAPHORE_LIVENESS_PATCH);
    const busy = holders.size > 0 || waiting.length > 0;
    if (checked) {
      // Nothing to check while empty: the first run to ask is checked at most a minute after it asked.
      if (!busy) checkDueAt = Date.now() + LIVENESS_CHECK_MS;
      else if (Date.now() >= checkDueAt) {
        await pruneDead();
        continue;
      }
    }
    const woke = await condition(
      () => changed || workflowInfo().continueAsNewSuggested,
      // Patched: the check's deadline, which requests and releases never move.
      !busy ? IDLE_MS : checked ? Math.max(1, checkDueAt - Date.now()) : LIVENESS_CHECK_MS,
    );
    changed = false;
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof jobSemaphoreWorkflow>({
        holders: [...holders.values()],
        ...(waiting.length > 0 ? { waiting } : {}),
        ...(checked ? { livenessCheckDueAt: checkDueAt } : {}),
      });
    }
    if (woke) continue;
    if (holders.size > 0 || waiting.length > 0) {
      // Patched: the loop's top checks when the deadline is due.
      if (!checked) await pruneDead();
      continue;
    }
    await condition(allHandlersFinished);
    if (holders.size === 0 && waiting.length === 0 && !changed) return;
  }
}

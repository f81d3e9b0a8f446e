import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  makeContinueAsNewFunc,
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
  SEMAPHORE_CHECK_ACTIVITY_PATCH,
  SEMAPHORE_LIVENESS_PATCH,
  SEMAPHORE_LOCAL_CHECK_PATCH,
  SEMAPHORE_OWN_QUEUE_PATCH,
  slotGrantedSignal,
  waitingQuery,
  type SemaphoreState,
  type SlotHolder,
  type SlotRequest,
  type SemaphoreActivities,
} from './semaphore-defs';
import { slotIdOf as keyOf, SlotTable } from './slot-table';

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
/**
 * The liveness check: a regular activity on the semaphore's queue behind {@link SEMAPHORE_CHECK_ACTIVITY_PATCH}
 * (a local activity that outlasted the workflow task made the history unreplayable: see the patch); a local
 * activity in the histories of {@link SEMAPHORE_LOCAL_CHECK_PATCH} before it, a regular one before that.
 */
const liveHolders = (asked: SlotHolder[]): Promise<string[]> =>
  patched(SEMAPHORE_CHECK_ACTIVITY_PATCH)
    ? tflowLiveHolders(asked)
    : patched(SEMAPHORE_LOCAL_CHECK_PATCH)
      ? local.tflowLiveHolders(asked)
      : tflowLiveHolders(asked);

/**
 * The semaphore behind `maxInstances: N > 1` (one per job id) and behind a pipeline's `concurrencyKey`
 * (one per pipeline and key, or one per pipeline for all its keys with `maxConcurrentTotal`): a long-lived
 * workflow that grants at most `max` slots per key and, with a total, `total` in all, serving the keys'
 * lines round-robin (slot-table.ts). Runs ask through the `acquireSlot` update (refused when full: the
 * job's run is skipped) or the `queueForSlot` update (queued when full: the run waits for `slotGranted`,
 * first come first served within its key; refused when it says `whenFull: 'skip' | 'cancel-newest'`; with
 * `cancel-in-progress`, queued after the oldest runs of its key are asked to cancel), with start, so the
 * first run creates it, on the asking worker's semaphore queue (`tflow-semaphores`) whatever the run's own
 * queue; they give their slot back with the `releaseSlot` signal, and holders or waiters that died
 * without releasing (a terminated run) are found by asking Temporal whether they still run: when a request
 * finds the semaphore full, and every {@link LIVENESS_CHECK_MS} while it has holders or waiters.
 */
export async function jobSemaphoreWorkflow(state: SemaphoreState = { holders: [] }): Promise<void> {
  // Only concurrency keys queue; in a job's semaphore the lines stay empty, so its commands are unchanged.
  const table = new SlotTable(state);
  let changed = false;

  const grantWaiting = () => {
    for (const holder of table.grantWaiting()) {
      void getExternalWorkflowHandle(holder.workflowId, holder.runId)
        .signal(slotGrantedSignal)
        .catch((err: unknown) => {
          // The run is gone: the liveness check frees its slot.
          log.warn('could not tell a run it holds a slot', { ...holder, error: String(err) });
        });
    }
  };
  /** `cancel-in-progress`: asks these runs to cancel; they give their slot back (or leave the line) when done. */
  const cancelRuns = (runs: SlotHolder[]) => {
    for (const run of runs) {
      void getExternalWorkflowHandle(run.workflowId, run.runId)
        .cancel()
        .catch((err: unknown) => {
          // Already closed: its release (or the liveness check) frees its slot.
          log.warn('could not cancel a run for a newer one of its key', { ...run, error: String(err) });
        });
    }
  };

  // Before SEMAPHORE_LIVENESS_PATCH: drops every holder and waiter missing from the answer, including the
  // runs that asked, or were granted a slot, while the activity ran (they were never asked about).
  const pruneDeadUnpatched = async () => {
    const alive = new Set(await tflowLiveHolders(table.known()));
    table.remove(
      new Set(
        table
          .known()
          .map(keyOf)
          .filter((k) => !alive.has(k)),
      ),
    );
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
    const asked = table.known();
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
    table.remove(dead);
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

  setHandler(holdersQuery, () => [...table.holders.values()]);
  setHandler(waitingQuery, () =>
    table.waiting.map((w) => ({
      workflowId: w.workflowId,
      runId: w.runId,
      ...(w.key !== undefined ? { key: w.key } : {}),
    })),
  );
  setHandler(releaseSlotSignal, (h) => {
    table.remove(new Set([keyOf(h)]));
    grantWaiting();
    changed = true;
  });
  /** The semaphore queue of an asking worker, when it is not the one this semaphore runs on. */
  let moveTo: string | undefined;
  /** Notes the asker's semaphore queue; the request without it (a waiter's line entry does not keep it). */
  const noteQueue = (asked: SlotRequest): SlotRequest => {
    const { queue, ...req } = asked;
    if (queue !== undefined && queue !== workflowInfo().taskQueue) moveTo ??= queue;
    return req;
  };

  setHandler(queueForSlotUpdate, async (asked) => {
    changed = true;
    const req = noteQueue(asked);
    if (table.holds(req)) return 'granted';
    if (table.waits(req)) return 'queued';
    // Full with nobody of its key in line: a dead holder may be what fills it.
    if (!table.hasLine(req) && !table.grantableNow(req)) await pruneDead();
    // Re-checked after the await: other requests may have taken slots or queued meanwhile.
    if (table.holds(req)) return 'granted';
    if (table.grantableNow(req)) {
      table.grant(req);
      return 'granted';
    }
    if (req.whenFull === 'skip' || req.whenFull === 'cancel-newest') return 'refused';
    table.enqueue(req);
    if (req.whenFull === 'cancel-in-progress') {
      const { cancelHolders, dropped } = table.trimToNewest(req);
      cancelRuns([...cancelHolders, ...dropped]);
    }
    return 'queued';
  });
  setHandler(acquireSlotUpdate, async (asked) => {
    changed = true;
    const req = noteQueue(asked);
    if (table.holds(req)) return true;
    if (table.holders.size >= req.max) await pruneDead();
    // Re-checked after the await: other requests may have taken slots meanwhile.
    if (table.holds(req)) return true;
    if (table.holders.size >= req.max) return false;
    table.grant({ workflowId: req.workflowId, runId: req.runId, max: req.max });
    return true;
  });

  /** What the next run of the semaphore starts from: the table and the liveness clock. */
  const carried = (checked: boolean): SemaphoreState => ({
    ...table.state(),
    ...(checked ? { livenessCheckDueAt: checkDueAt } : {}),
  });

  for (;;) {
    const checked = patched(SEMAPHORE_LIVENESS_PATCH);
    // Asked by a worker whose semaphore queue this is not (started on a run's own queue by a worker from
    // before SEMAPHORE_TASK_QUEUE): moves to it, so that runs of other queues are answered even when the
    // queue it started on has no worker left.
    if (moveTo !== undefined && patched(SEMAPHORE_OWN_QUEUE_PATCH)) {
      await condition(allHandlersFinished);
      await makeContinueAsNewFunc<typeof jobSemaphoreWorkflow>({ taskQueue: moveTo })(carried(checked));
    }
    const busy = table.busy;
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
      await continueAsNew<typeof jobSemaphoreWorkflow>(carried(checked));
    }
    if (woke) continue;
    if (table.busy) {
      // Patched: the loop's top checks when the deadline is due.
      if (!checked) await pruneDead();
      continue;
    }
    await condition(allHandlersFinished);
    if (!table.busy && !changed) return;
  }
}

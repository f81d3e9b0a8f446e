import {
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { JobAlertEvent } from '../alert-types';
import {
  countsChangedSignal,
  reconfigureSignal,
  runSucceededSignal,
  watchdogStateQuery,
  WATCHDOG_AT_REST_PATCH,
  WATCHDOG_OBEYS_SCHEDULE_PATCH,
  type RunSucceeded,
  type ScheduleCounts,
  type ScheduleWatch,
  type WatchdogConfig,
  type WatchdogState,
  type WatchdogActivities,
} from './watchdog-defs';
import { raiseAlert } from './raise-alert';

/**
 * How often the server's missed/skipped counts were read (before WATCHDOG_AT_REST_PATCH), and since it the
 * shortest spacing of two reads (a job that fires every second is read every 5 minutes, not every second).
 */
const COUNT_CHECK_MS = 5 * 60_000;
/** After a nominal time, the counts are read this much later (the server counts a skip at the time itself). */
const COUNT_GRACE_MS = 30_000;
/** The longest sleep between two reads of the counts when the schedule names no next time (paused, spent). */
const IDLE_COUNT_CHECK_MS = 24 * 3600_000;
/** A read this late (the watchdog's worker or the server was down) is read again 5 minutes on. */
const LATE_WAKE_MS = 60_000;
/** Loop turns before continue-as-new, so that a job that runs every second keeps a short history. */
const TURNS_PER_RUN = 500;

// Retried for as long as it fails (an overloaded server, a codec key this worker lacks, a permission): a
// watchdog that gave up would leave its job unwatched for good. Each failed attempt is logged and counted
// by the activity (tflow_job_alerts_unevaluable), and `tflow doctor` names the job.
const { tflowWatchSchedule } = proxyActivities<WatchdogActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '1m' },
});

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * When the counts are read next (WATCHDOG_AT_REST_PATCH): after the schedule's next nominal time, the only
 * moment its counters can grow, plus a grace; no sooner than 5 minutes after this read; once a day when it
 * names no next time; and 5 minutes on when this read came late (counters an outage held back).
 */
function countsDueAfter(watch: ScheduleWatch, now: number, late: boolean): string {
  const next = watch.nextActionAt
    ? Date.parse(watch.nextActionAt) + COUNT_GRACE_MS
    : now + IDLE_COUNT_CHECK_MS;
  const due = Math.max(next, now + COUNT_CHECK_MS);
  return iso(late ? Math.min(due, now + COUNT_CHECK_MS) : due);
}

/** The dead-man deadline, or Infinity when none runs (no expectSuccessWithin, or already silent). */
function deadlineOf(state: WatchdogState, config: WatchdogConfig): number {
  return config.expectSuccessWithinMs !== undefined && !state.silent
    ? Date.parse(state.lastSuccessAt) + config.expectSuccessWithinMs
    : Infinity;
}

/**
 * The per-job watchdog: a workflow on the watchdog task queue (not the job's), so it keeps watching when no
 * worker of the job runs. It sleeps on one durable timer until the next moment something can have
 * changed, and does nothing in between:
 * - the dead-man deadline (the last completed run + expectSuccessWithin). Each completed run signals
 *   `runSucceeded`, which only moves the last success (no timer is cancelled or started); when the timer
 *   fires it is checked against the last success, and the watchdog sleeps again to the later deadline, or
 *   raises `silent` once, and `recovered` at the next completed run (a signal that then wakes it);
 * - with onMissed, the schedule's next nominal time plus a grace (no sooner than 5 minutes after the last
 *   read), when it reads the schedule's counters (missed past the catch-up window, skipped for overlap) and
 *   reports what they gained; they are read at each dead-man deadline too.
 * A job at rest (nothing due before the deadline) costs no workflow task. Histories recorded before
 * WATCHDOG_AT_REST_PATCH read the counters every 5 minutes, and restart the timer at each success.
 * Started and stopped by the scheduler with the job: it reads its configuration from the job's schedule at
 * start, at each `reconfigure`, and again before each alert it raises on its own (the schedule is the
 * source of truth: a job removed or changed by a write whose signal never came ends the watchdog quietly,
 * or is adopted), and ends when the job is gone or no longer needs it.
 */
export async function jobWatchdogWorkflow(initial: WatchdogState): Promise<void> {
  const { pendingReconfigure, pendingSuccess, ...carried } = initial;
  const state: WatchdogState = { ...carried };
  let succeeded: RunSucceeded | undefined = pendingSuccess;
  let reconfigure = state.config === undefined || pendingReconfigure === true;
  /** WATCHDOG_AT_REST_PATCH, as the loop last decided it. */
  let atRest = false;
  setHandler(watchdogStateQuery, () => state);
  setHandler(runSucceededSignal, (s) => {
    // At rest, a success while not silent only moves the deadline: no wake-up, no timer command.
    if (atRest && !state.silent) {
      if (Date.parse(s.at) > Date.parse(state.lastSuccessAt)) state.lastSuccessAt = s.at;
      return;
    }
    if (!succeeded || s.at > succeeded.at) succeeded = s;
  });
  setHandler(reconfigureSignal, () => {
    reconfigure = true;
  });
  /** A trigger or backfill was sent: the counts are read within a grace (only histories with the signal). */
  let countsSoon = false;
  setHandler(countsChangedSignal, () => {
    // Only when it makes the read earlier: a job without onMissed, or a read already due sooner, costs none.
    if (!state.config?.onMissed) return;
    if (!state.countsDueAt || Date.parse(state.countsDueAt) > Date.now() + COUNT_GRACE_MS) countsSoon = true;
  });

  for (let turn = 0; ; turn++) {
    // Before continue-as-new, so that the due read rides along in the state.
    if (countsSoon) {
      countsSoon = false;
      const soon = iso(Date.now() + COUNT_GRACE_MS);
      if (!state.countsDueAt || Date.parse(state.countsDueAt) > Date.parse(soon)) state.countsDueAt = soon;
    }
    if (turn >= TURNS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      // What the handlers left for the loop goes along: a reconfigure or a success lost here would be lost
      // for good (a changed job never re-read, a `recovered` never raised).
      await continueAsNew<typeof jobWatchdogWorkflow>({
        ...state,
        ...(reconfigure ? { pendingReconfigure: true } : {}),
        ...(succeeded ? { pendingSuccess: succeeded } : {}),
      });
    }
    if (reconfigure) {
      reconfigure = false;
      const watch = await tflowWatchSchedule(state.jobId);
      // Removed, or no alert needs a watchdog any more; unless the job changed again while it was read
      // (a write adding alerts back signals a watchdog that is still running).
      if (!watch.config) {
        if (reconfigure) continue;
        return;
      }
      adopt(state, watch.config);
      const now = Date.now();
      if (!state.counts && watch.counts) {
        state.counts = watch.counts;
        state.countsAt = iso(now);
      }
      // The schedule may have changed its times (used under WATCHDOG_AT_REST_PATCH only); never later than
      // the read already due, so that edits made more often than every 5 minutes cannot put it off.
      const due = countsDueAfter(watch, now, false);
      state.countsDueAt =
        state.countsDueAt && Date.parse(state.countsDueAt) < Date.parse(due) ? state.countsDueAt : due;
      continue;
    }
    const config = state.config!;
    atRest = patched(WATCHDOG_AT_REST_PATCH);
    const deadline = deadlineOf(state, config);
    const countCheck = !config.onMissed
      ? Infinity
      : atRest && state.countsDueAt
        ? Date.parse(state.countsDueAt)
        : (state.countsAt ? Date.parse(state.countsAt) : 0) + COUNT_CHECK_MS;
    const wakeAt = Math.min(deadline, countCheck);
    const wait = wakeAt - Date.now();
    if (wait > 0) {
      const woken = atRest
        ? () => succeeded !== undefined || reconfigure || countsSoon || workflowInfo().continueAsNewSuggested
        : () => succeeded !== undefined || reconfigure;
      if (wakeAt === Infinity) await condition(woken);
      else await condition(woken, wait);
    }
    if (reconfigure || countsSoon) continue;
    if (succeeded) {
      const run = succeeded;
      succeeded = undefined;
      await onSuccess(state, config, run);
      continue;
    }
    const now = Date.now();
    // At rest, successes moved the deadline while the timer slept: sleep again to the later one.
    const due = atRest ? deadlineOf(state, config) : deadline;
    const late = now - wakeAt > LATE_WAKE_MS;
    if (now >= due) {
      const seen = state.lastSuccessAt;
      const watch = await tflowWatchSchedule(state.jobId, { completedAfter: seen });
      const verdict = obey(state, config, watch);
      if (verdict === 'end') return;
      if (verdict === 'adopted') continue;
      // A run completed while the schedule was read: the deadline moved, nothing is silent.
      if (atRest && state.lastSuccessAt !== seen) continue;
      // A run completed that never told this watchdog (its signal late after a server outage, or its input
      // edited outside temporal-flow without the watchdog flag): it counts, as the server saw it close.
      // Only reads that carry `lastCompletedAt` (since it exists) take this path: older histories replay.
      if (watch.lastCompletedAt && Date.parse(watch.lastCompletedAt) > Date.parse(state.lastSuccessAt)) {
        state.lastSuccessAt = watch.lastCompletedAt;
        continue;
      }
      state.silent = true;
      await raiseSilent(state, config, watch, now);
      await reportCounts(state, config, watch, now);
      if (atRest) state.countsDueAt = countsDueAfter(watch, now, late);
      if (watch.state === 'deleted') return;
    } else if (now >= countCheck) {
      const watch = await tflowWatchSchedule(state.jobId);
      const verdict = obey(state, config, watch);
      if (verdict === 'end') return;
      if (verdict === 'adopted') continue;
      await reportCounts(state, config, watch, now);
      if (atRest) state.countsDueAt = countsDueAfter(watch, now, late);
      if (watch.state === 'deleted') return;
    }
  }
}

/**
 * What the schedule, read just before an alert, says of it (WATCHDOG_OBEYS_SCHEDULE_PATCH; histories
 * recorded before it alert as they did): `end` when the job is gone or needs no watchdog (a remove or an
 * edit whose signal never came), `adopted` when its configuration changed (the deadline is computed
 * again from it), else `act`.
 */
function obey(state: WatchdogState, config: WatchdogConfig, watch: ScheduleWatch): 'end' | 'adopted' | 'act' {
  if (!patched(WATCHDOG_OBEYS_SCHEDULE_PATCH)) return 'act';
  if (watch.state === 'deleted' || !watch.config) return 'end';
  if (JSON.stringify(watch.config) === JSON.stringify(config)) return 'act';
  adopt(state, watch.config);
  return 'adopted';
}

/**
 * Takes the job's configuration as read. The dead-man clock starts no earlier than when the switch was
 * set (`deadManSince`): a switch added to a job whose runs never reported, or a job id removed and created
 * again, starts a fresh clock, and a silent period of the job before it is closed without `recovered`.
 * Only reads made since `deadManSince` exists carry it, so older histories replay as they ran.
 */
function adopt(state: WatchdogState, config: WatchdogConfig): void {
  state.config = config;
  const since = config.deadManSince ? Date.parse(config.deadManSince) : NaN;
  if (since > Date.parse(state.lastSuccessAt)) {
    state.lastSuccessAt = config.deadManSince!;
    state.silent = false;
  }
}

async function onSuccess(state: WatchdogState, config: WatchdogConfig, run: RunSucceeded): Promise<void> {
  if (Date.parse(run.at) < Date.parse(state.lastSuccessAt)) return;
  const since = state.lastSuccessAt;
  state.lastSuccessAt = run.at;
  if (!state.silent) return;
  state.silent = false;
  if (!config.onSilent) return;
  await raiseAlert(
    config.onSilent,
    {
      kind: 'recovered',
      jobId: state.jobId,
      text: `job "${state.jobId}" recovered: run ${run.workflowId} completed (silent since ${since})`,
      at: iso(Date.now()),
      workflowId: run.workflowId,
      runId: run.runId,
      lastSuccessAt: since,
      ...(config.expectSuccessWithinMs !== undefined
        ? { expectSuccessWithinMs: config.expectSuccessWithinMs }
        : {}),
    },
    'watchdog',
  );
}

async function raiseSilent(
  state: WatchdogState,
  config: WatchdogConfig,
  watch: ScheduleWatch,
  now: number,
): Promise<void> {
  if (!config.onSilent) return;
  const why =
    watch.state === 'deleted'
      ? 'its schedule is deleted'
      : watch.state === 'paused'
        ? 'its schedule is paused'
        : 'no run completed: check its worker and its failures';
  await raiseAlert(
    config.onSilent,
    {
      kind: 'silent',
      jobId: state.jobId,
      text: `job "${state.jobId}" has had no successful run for ${config.expectSuccessWithinMs} ms (since ${state.lastSuccessAt}): ${why}`,
      at: iso(now),
      lastSuccessAt: state.lastSuccessAt,
      expectSuccessWithinMs: config.expectSuccessWithinMs!,
      schedule: watch.state,
    },
    'watchdog',
  );
}

/** Reports what the server's counters gained since they were last read; the first read is the baseline. */
async function reportCounts(
  state: WatchdogState,
  config: WatchdogConfig,
  watch: ScheduleWatch,
  now: number,
): Promise<void> {
  const before = state.counts;
  const since = state.countsAt;
  const after = watch.counts;
  state.countsAt = iso(now);
  if (!after) return;
  state.counts = after;
  const target = config.onMissed;
  if (!before || !target) return;
  const gains: [JobAlertEvent['reason'], keyof ScheduleCounts, string][] = [
    ['catchup-window', 'missedCatchupWindow', 'missed past the catch-up window'],
    ['overlap', 'overlapSkipped', 'skipped by the overlap policy'],
  ];
  for (const [reason, key, what] of gains) {
    const count = after[key] - before[key];
    if (count <= 0) continue;
    await raiseAlert(
      target,
      {
        kind: 'missed',
        jobId: state.jobId,
        text: `job "${state.jobId}": ${count} occurrence(s) ${what} since ${since ?? 'the watch began'}`,
        at: iso(now),
        reason,
        count,
      },
      'watchdog',
    );
  }
}

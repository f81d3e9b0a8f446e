/*
 * What became of the action times a job's schedule said it would take, told from the runs visibility shows.
 *
 * Why: the server counts an occurrence it skipped for overlap or found past its catch-up window, but not
 * one whose start it tried and gave up on. A start that fails with a retryable error (Temporal's database
 * down, an overloaded history service) is retried until the occurrence's catch-up window ends and then
 * dropped; a start refused outright (a workflow of that id already exists) is dropped at once; neither is
 * counted anywhere. So the evaluator keeps the times the schedule listed at its last read, matches them
 * with the runs the schedule started (their `TemporalScheduledStartTime`), and calls a time that no run
 * stands for `not-started` once the server is surely done with it:
 * - its start attempts ended: the server retries a start until the time's catch-up window ends, and never
 *   for longer than an hour (the local activity's schedule-to-close timeout is capped there, and the
 *   default catch-up window is a year); plus a margin for visibility. Only once the schedule's workflow
 *   has gone past the time (its listed times begin after it, `processedUntil`): a server that is behind
 *   (overloaded, or back from an outage) has not tried yet, and will start the time or count it missed;
 * - or a later time started (the schedule workflow starts its actions one after the other and waits for
 *   each start's attempts to end), plus the margin.
 *
 * Matching: the listed times include the spec's jitter, a run's nominal time does not (and the server
 * truncates it to the second), so a run of nominal time n stands for a listed time t when
 * n <= t < n + jitter + 1 s; each run stands for one time.
 */

/** After the server is done with an occurrence, how long its run may still take to show in visibility. */
export const NOT_STARTED_MARGIN_MS = 30_000;
/** The longest the server retries one start (its local activity's schedule-to-close timeout is capped). */
export const START_ATTEMPTS_MAX_MS = 3600_000;

/** How long after a time the server may still be trying to start it. */
export function giveUpMs(catchupMs: number): number {
  return Math.min(catchupMs, START_ATTEMPTS_MAX_MS);
}

/** What became of the times a job was expected to take, at one moment. */
export interface TimesAccount {
  /** Times a run stands for. */
  started: number[];
  /** With no run, and the server done with them (see above): it will not start them. */
  notStarted: number[];
  /** Passed, with no run yet, still within that bound. */
  waiting: number[];
  /** Not reached yet. */
  future: number[];
}

/**
 * Sorts `expected` (epoch ms, jitter included) against the nominal times of the runs started
 * (`runs`, epoch ms) at `now`.
 */
export function accountTimes(
  expected: readonly number[],
  runs: readonly number[],
  jitterMs: number,
  catchupMs: number,
  now: number,
  /** The schedule's first listed time at a read made now: it has processed every time before it. */
  processedUntil = Infinity,
): TimesAccount {
  const account: TimesAccount = { started: [], notStarted: [], waiting: [], future: [] };
  const free = [...runs].sort((a, b) => a - b);
  const used = new Array<boolean>(free.length).fill(false);
  const span = Math.max(0, jitterMs) + 1000;
  for (const t of [...expected].sort((a, b) => a - b)) {
    if (t > now) {
      account.future.push(t);
      continue;
    }
    const i = free.findIndex((n, k) => !used[k] && n <= t && t < n + span);
    if (i >= 0) {
      used[i] = true;
      account.started.push(t);
    } else if (
      (t < processedUntil && t + giveUpMs(catchupMs) + NOT_STARTED_MARGIN_MS <= now) ||
      (t + NOT_STARTED_MARGIN_MS <= now && free.some((n) => n > t))
    ) {
      account.notStarted.push(t);
    } else {
      account.waiting.push(t);
    }
  }
  return account;
}

/**
 * Whether the schedule was edited (updated, paused or resumed) between two reads: its conflict token moved
 * by more than the actions a limited schedule took meanwhile. Unknown tokens count as an edit.
 */
export function editedBetween(
  before: { editToken?: bigint; remainingActions?: number },
  after: { editToken?: bigint; remainingActions?: number },
): boolean {
  if (before.editToken === undefined || after.editToken === undefined) return true;
  const taken =
    before.remainingActions !== undefined && after.remainingActions !== undefined
      ? before.remainingActions - after.remainingActions
      : 0;
  return after.editToken - before.editToken !== BigInt(taken);
}

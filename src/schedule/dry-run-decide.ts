import type { ScheduleOverlapPolicy } from '@temporalio/client';
import type { DryRunOccurrence } from './dry-run-types';
import type { ServerFire } from './dry-run-times';

/*
 * The decisions of a dry run: a walk through the server's fires in order, with the server's overlap policy
 * deciding which fires start a run and when, and the job guards (src/workflows/guards/job-guards.ts) deciding, at
 * each run's first workflow task, whether it runs its steps. The rules, each as the code that decides it:
 *
 * - A run's first workflow task is when it starts (its nominal time, or when the run before closed for a
 *   buffered one), or the end of the `workersDown` span it starts in. Its steps take `runDuration` of time
 *   with a worker up (a span of no worker pauses them). Temporal's own delays (tenths of a second between
 *   buffered runs, a busy server) are zero here: the server's rule for buffered runs (judged-at.ts, "judged
 *   when it could have started") then judges each run at its first workflow task, which is what this does.
 * - Overlap (the server, while a run of the job is open: started, not closed): SKIP does not start the new
 *   one (`skip: overlap`), BUFFER_ONE holds one and drops the rest, BUFFER_ALL holds them all, each started
 *   when the run before closes (`buffered`); CANCEL_OTHER ends the open run when a worker handles the
 *   cancellation, TERMINATE_OTHER at once, then starts the new one; ALLOW_ALL starts every fire. A run that
 *   closes at the instant a fire comes due counts as closed.
 * - The guards, in their order: a fire the DST policy does not run skips itself (`dst`); a coalescing job's
 *   (overlap SKIP) run later than its grace stands for the latest fire due by its first task, since every
 *   fire after it was skipped while it was open (coalesce.ts; those fires are `coalesced` into it); a run
 *   later than `misfireGraceTime` after the occurrence it is judged by skips itself (`misfire`); with
 *   maxInstances > 1, a run that finds N runs holding a slot skips itself (`max-instances`).
 * - Not modelled: the catch-up window (it only matters when the Temporal server itself is behind), manual
 *   triggers and backfills, runs open before the window (none is assumed), failures and retries.
 */

/** What {@link decide} is given. Instants in Unix ms. */
export interface DecideInput {
  /** The server's fires, oldest first: the window's, then any up to the end of the last workersDown span. */
  fires: readonly ServerFire[];
  /** How many of `fires` are in the window (only these get a decision). */
  inWindow: number;
  overlap: ScheduleOverlapPolicy;
  maxInstances: number;
  misfireGraceMs?: number;
  runDurationMs: number;
  /** Spans with no worker, `[from, to)`, sorted and merged. */
  workersDown: readonly { from: number; to: number }[];
  paused: boolean;
}

interface Run {
  i: number;
  start: number;
  firstTask: number;
  close: number;
  /** It reached its steps (and holds a slot of the semaphore with maxInstances > 1). */
  steps: boolean;
  /** It goes through the coalescing judgement (not a DST skip): fires skipped while it waits are coalesced. */
  judged: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** The decision of every fire in the window, oldest first. */
export function decide(input: DecideInput): DryRunOccurrence[] {
  const { fires, overlap, maxInstances, misfireGraceMs: grace, runDurationMs, workersDown } = input;
  const out: DryRunOccurrence[] = fires.slice(0, input.inWindow).map((f) => ({
    nominal: f.utc,
    local: f.local,
    decision: 'skip',
    ...(f.jitterUntil ? { jitterUntil: f.jitterUntil } : {}),
  }));
  const base = (i: number): Pick<DryRunOccurrence, 'nominal' | 'local' | 'jitterUntil'> => ({
    nominal: out[i]!.nominal,
    local: out[i]!.local,
    ...(out[i]!.jitterUntil ? { jitterUntil: out[i]!.jitterUntil } : {}),
  });
  if (input.paused) return out.map((o) => ({ ...o, reason: 'paused' }));

  const upAt = (t: number) => workersDown.find((s) => t >= s.from && t < s.to)?.to ?? t;
  const workEnd = (start: number) => {
    let [t, left] = [start, runDurationMs];
    for (const s of workersDown) {
      if (s.to <= t) continue;
      if (s.from >= t + left) break;
      left -= Math.max(0, s.from - t);
      t = s.to;
    }
    return t + left;
  };
  const holders: Run[] = [];

  /** Starts the run of fire `i` at `start`, and decides it as the guards will at its first workflow task. */
  const startRun = (i: number, start: number): Run => {
    const f = fires[i]!;
    const firstTask = upAt(start);
    const judged = (o: Partial<DryRunOccurrence>, steps = false): Run => {
      out[i] = { ...base(i), decision: 'skip', ...o };
      return { i, start, firstTask, close: firstTask, steps, judged: !f.dstSkip };
    };
    if (f.dstSkip) return judged({ reason: 'dst', judgedAt: iso(firstTask) });
    let lateMs = firstTask - f.at;
    let standsFor: string | undefined;
    if (overlap === 'SKIP' && grace !== undefined && lateMs > grace) {
      const latest = fires.filter((g) => g.at > f.at && g.at <= firstTask).pop();
      if (latest) [lateMs, standsFor] = [firstTask - latest.at, latest.utc];
    }
    const stood = standsFor ? { standsFor } : {};
    if (grace !== undefined && lateMs > grace) {
      return judged({ reason: 'misfire', judgedAt: iso(firstTask), lateMs, ...stood });
    }
    if (maxInstances > 1) {
      const held = holders.filter((r) => r.close > firstTask).length;
      if (held >= maxInstances) {
        return judged({
          reason: 'max-instances',
          judgedAt: iso(firstTask),
          ...(lateMs > 0 ? { lateMs } : {}),
        });
      }
    }
    const close = workEnd(firstTask);
    out[i] = {
      ...base(i),
      decision: start > f.at ? 'buffered' : 'run',
      startsAt: iso(firstTask),
      endsAt: iso(close),
      ...(lateMs > 0 ? { lateMs } : {}),
      ...stood,
    };
    const run = { i, start, firstTask, close, steps: true, judged: true };
    if (maxInstances > 1) holders.push(run);
    return run;
  };

  /** Ends an open run at `at` (CANCEL_OTHER, TERMINATE_OTHER). */
  const cut = (run: Run, at: number, how: 'cancelled' | 'terminated') => {
    if (run.close <= at) return;
    // Ended before its first workflow task: it never reached its guards or steps.
    if (run.firstTask >= at) out[run.i] = { ...base(run.i), decision: 'skip', reason: 'overlap' };
    else out[run.i] = { ...out[run.i]!, endsAt: iso(at), cutShort: how };
    run.close = at;
  };

  let open: Run | undefined;
  const buffer: number[] = [];
  /** Closes the open run if it ended by `t`, starting the buffered ones in turn. */
  const settle = (t: number) => {
    while (open && open.close <= t) {
      const next = buffer.shift();
      open = next === undefined ? undefined : startRun(next, open.close);
    }
  };
  for (let i = 0; i < input.inWindow; i++) {
    const t = fires[i]!.at;
    if (overlap === 'ALLOW_ALL') {
      startRun(i, t);
      continue;
    }
    settle(t);
    if (!open) {
      open = startRun(i, t);
      continue;
    }
    switch (overlap) {
      case 'SKIP':
        out[i] =
          open.firstTask > t && open.judged
            ? { ...base(i), decision: 'coalesced', coalescedInto: out[open.i]!.nominal }
            : { ...base(i), decision: 'skip', reason: 'overlap' };
        break;
      case 'BUFFER_ONE':
        if (buffer.length === 0) buffer.push(i);
        else out[i] = { ...base(i), decision: 'skip', reason: 'overlap' };
        break;
      case 'BUFFER_ALL':
        buffer.push(i);
        break;
      default: {
        const terminate = overlap === 'TERMINATE_OTHER';
        cut(open, terminate ? t : upAt(t), terminate ? 'terminated' : 'cancelled');
        open = startRun(i, Math.max(t, open.close));
      }
    }
  }
  // The window's buffered fires still start, after it if need be.
  settle(Number.POSITIVE_INFINITY);
  return out;
}

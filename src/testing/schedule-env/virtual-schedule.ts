import type { ScheduleOverlapPolicy } from '@temporalio/client';
import type { ServerFire } from '../../schedule/dry-run-times';
import type { EnvState } from './env-state';
import { FireSource } from './fire-source';
import type { VirtualJob } from './job-check';
import { processBuffer, type BufferedStart } from './buffer-rules';
import type { RunControl } from './run-control';
import type { OccurrenceRecord, OccurrenceSkipReason, RunRecord, RunSource } from './schedule-env-types';
import { startRun } from './virtual-run';
import { Watchdog } from './watchdog';

/*
 * One job's schedule on the simulated server, as Temporal's scheduler workflow runs it
 * (service/worker/scheduler/workflow.go, read, not copied). Each time it wakes (a fire's time, a watched run
 * closing, a pause, resume, trigger or backfill, the server coming back) it processes the time since it
 * last did: while paused the whole range is passed over (`paused`); a fire found later than the catch-up
 * window is not started (`catchup-window`); the others join the buffer. Then the backfills (10 times per
 * wake, inclusive of their start, manual: paused or not), then the buffer (buffer-rules.ts): a start that is
 * not manual found while paused is dropped (`buffer-dropped`). Only the run started with nothing running
 * is watched (ALLOW_ALL starts are not), and its close wakes the schedule; pauseOnFailure pauses on a
 * failed one. While the server is down nothing wakes; it catches up when the server is back.
 */

/** A start in the buffer: its occurrence and what the run needs. */
interface Start {
  occurrence: OccurrenceRecord;
  dstSkip: boolean;
  manual: boolean;
}

const isoMs = (ms: number) => new Date(ms).toISOString();
const BACKFILLS_PER_WAKE = 10;
/** How many of its latest actions a schedule's description lists (`info.recentActions`). */
const RECENT_ACTIONS = 10;

/** A job's schedule in virtual time. */
export class VirtualSchedule {
  paused: boolean;
  removed = false;
  private buffer: BufferedStart<Start>[] = [];
  private readonly watched: { run: RunRecord; control: RunControl }[] = [];
  private readonly backfills: { fires: ServerFire[]; overlap: ScheduleOverlapPolicy }[] = [];
  private lastProcessed: number;
  private plannedTo: number;
  private readonly createdAt: number;
  private remainingActions: number | undefined;
  private readonly slots = { held: 0 };
  /** The latest runs started, oldest first: what the schedule's description lists as its recent actions. */
  private readonly recent: { workflowId: string; nominal: number }[] = [];
  readonly fires: FireSource;
  readonly watchdog: Watchdog | undefined;

  constructor(
    private readonly env: EnvState,
    readonly job: VirtualJob,
    private readonly jitter: (nominal: number, until: number | undefined) => number,
  ) {
    const now = env.clock.now();
    this.paused = job.paused;
    this.lastProcessed = now;
    this.plannedTo = now;
    this.createdAt = now;
    const p = job.policies;
    this.fires = new FireSource(
      job.trigger,
      {
        defaultTimezone: job.prepared.record.timezone,
        ...(p.jitterMs !== undefined ? { jitterMs: p.jitterMs } : {}),
        ...(p.startAt ? { startAt: p.startAt } : {}),
        ...(p.endAt ? { endAt: p.endAt } : {}),
      },
      now,
    );
    if (job.once) this.remainingActions = job.dueNow ? 0 : 1;
    this.watchdog =
      job.alerts.onSilent || job.alerts.onMissed ? new Watchdog(env, job, () => this.state()) : undefined;
    if (job.dueNow && job.prepared.due) {
      // A one-off due now is backfilled at once (its runAt's second), as the scheduler writes it.
      const at = job.prepared.due.at.getTime();
      this.backfill(at, at, job.policies.overlap);
    }
  }

  /** `paused`, `active` or `deleted`, as the dead-man switch reports it. */
  state(): 'paused' | 'active' | 'deleted' {
    return this.removed ? 'deleted' : this.paused ? 'paused' : 'active';
  }

  /** Queues a wake at each fire's start time up to `until` (called before the clock runs there). */
  plan(until: number): void {
    if (this.removed || until <= this.plannedTo) return;
    for (const f of this.fires.between(this.plannedTo, until)) {
      this.env.clock.at(this.jitter(f.at, f.jitterUntil ? Date.parse(f.jitterUntil) : undefined), () =>
        this.wake(),
      );
    }
    this.plannedTo = until;
  }

  /** Runs one iteration of the scheduler, as when its workflow wakes now. */
  wake(): void {
    if (this.removed || this.env.serverDownAt(this.env.clock.now())) return;
    const now = this.env.clock.now();
    this.processTimeRange(now);
    this.processBackfills();
    while (this.processBuffer()) {
      // a start was dropped (paused): the buffer is processed again, as the server does
    }
    if (this.backfills.length > 0 && this.backfills[0]!.overlap === 'ALLOW_ALL') {
      this.env.clock.at(now + 1000, () => this.wake());
    }
  }

  private occurrence(nominal: number, source: RunSource): OccurrenceRecord {
    const o: OccurrenceRecord = {
      jobId: this.job.jobId,
      nominal: isoMs(nominal),
      source,
      outcome: 'buffered',
    };
    this.env.occurrences.push(o);
    return o;
  }

  private skip(o: OccurrenceRecord, reason: OccurrenceSkipReason): void {
    Object.assign(o, { outcome: 'skipped', reason });
    if (reason === 'overlap' || reason === 'catchup-window') this.watchdog?.serverMissed(reason, o.nominal);
  }

  private processTimeRange(now: number): void {
    const fires = this.fires.between(this.lastProcessed, now);
    this.lastProcessed = now;
    for (const f of fires) {
      const actual = this.jitter(f.at, f.jitterUntil ? Date.parse(f.jitterUntil) : undefined);
      if (actual > now) {
        // Not due yet (jitter): a later wake takes it.
        this.lastProcessed = Math.min(this.lastProcessed, f.at - 1);
        break;
      }
      const o = this.occurrence(f.at, 'schedule');
      if (this.paused || this.remainingActions === 0) {
        this.skip(o, 'paused');
        continue;
      }
      if (now - actual > this.job.catchupWindowMs) {
        this.skip(o, 'catchup-window');
        continue;
      }
      this.buffer.push({
        overlap: this.job.policies.overlap,
        item: { occurrence: o, dstSkip: f.dstSkip, manual: false },
      });
    }
  }

  private processBackfills(): void {
    let limit = BACKFILLS_PER_WAKE;
    while (this.backfills.length > 0 && limit > 0 && this.buffer.length < 500) {
      const b = this.backfills[0]!;
      while (b.fires.length > 0 && limit > 0) {
        const f = b.fires.shift()!;
        limit--;
        const o = this.occurrence(f.at, 'backfill');
        this.buffer.push({ overlap: b.overlap, item: { occurrence: o, dstSkip: f.dstSkip, manual: true } });
      }
      if (b.fires.length === 0) this.backfills.shift();
    }
  }

  /** One pass over the buffer; true when it should be processed again at once. */
  private processBuffer(): boolean {
    if (this.buffer.length === 0) return false;
    const action = processBuffer(this.buffer, this.watched.length > 0);
    this.buffer = action.buffer;
    for (const s of action.skipped) this.skip(s.occurrence, 'overlap');
    let again = false;
    const starts = [...action.overlapping, ...(action.nonOverlapping ? [action.nonOverlapping] : [])];
    for (const s of starts) {
      if (!s.manual && (this.paused || this.remainingActions === 0)) {
        this.skip(s.occurrence, 'buffer-dropped');
        again = true;
        continue;
      }
      if (!s.manual && this.remainingActions !== undefined) this.remainingActions--;
      const started = startRun(this.env, this.job, s.occurrence, s.dstSkip, {
        closed: (run) => this.closed(run, started.control),
        succeeded: (at) => this.watchdog?.succeeded(at),
        slots: this.slots,
        latestFire: (after, until, workflowId) => this.standsFor(after, until, workflowId),
      });
      this.recent.push({ workflowId: started.run.workflowId, nominal: Date.parse(s.occurrence.nominal) });
      if (this.recent.length > RECENT_ACTIONS) this.recent.shift();
      if (s === action.nonOverlapping) this.watched.push(started);
    }
    if (action.needTerminate) for (const w of this.watched) w.control.end('terminated');
    else if (action.needCancel) for (const w of this.watched) w.control.end('cancelled');
    return again;
  }

  /**
   * The server's answer to a late coalescing run's lookup (latest-occurrence.ts): none unless the schedule
   * is SKIP and not paused; else the latest fire after the run's nominal time and after every other recent
   * action's nominal time, up to now.
   */
  private standsFor(after: number, until: number, workflowId: string): number | undefined {
    if (this.job.policies.overlap !== 'SKIP' || this.paused) return undefined;
    let lower = after;
    for (const a of this.recent) {
      if (a.workflowId !== workflowId && a.nominal > lower && a.nominal <= until) lower = a.nominal;
    }
    const latest = this.fires.latestBetween(lower, until)?.at;
    if (latest !== undefined || lower >= this.createdAt) return latest;
    // The server asks the spec, which has times before the create too (a backfilled run's window).
    return this.fires.pastBetween(lower, Math.min(until, this.createdAt)).at(-1)?.at;
  }

  private closed(run: RunRecord, control: RunControl): void {
    const i = this.watched.findIndex((w) => w.control === control);
    if (i < 0) return;
    this.watched.splice(i, 1);
    if (this.job.policies.pauseOnFailure && run.status === 'failed' && !this.paused) this.paused = true;
    if (this.job.once && run.source !== 'trigger') this.remove();
    this.wake();
  }

  /** pauseJob: nothing more is started by the spec; buffered starts are dropped at the next pass. */
  pause(): void {
    this.paused = true;
    this.wake();
  }

  /** resumeJob: fires from now on start again (those of the pause are not made up). */
  resume(): void {
    this.paused = false;
    this.wake();
  }

  /** triggerJob: a manual start now, with the job's own overlap policy. */
  trigger(): void {
    const now = this.env.clock.now();
    const o = this.occurrence(now, 'trigger');
    this.buffer.push({
      overlap: this.job.policies.overlap,
      item: { occurrence: o, dstSkip: false, manual: true },
    });
    this.wake();
  }

  /** backfillJob: the fires of `[from, to]`, manual, with `overlap`. */
  backfill(from: number, to: number, overlap: ScheduleOverlapPolicy): void {
    this.backfills.push({ fires: this.fires.pastBetween(from - 1, to), overlap });
    this.wake();
  }

  /** removeJob: nothing more starts; runs in flight go on. */
  remove(): void {
    this.removed = true;
    for (const s of this.buffer) this.skip(s.item.occurrence, 'removed');
    this.buffer = [];
    this.watchdog?.stop();
  }
}

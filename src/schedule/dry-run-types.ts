import type { Duration } from '@temporalio/common';
import type { DstWarning } from './dst';
import type { DstPolicy } from './dst-policy';
import type { CompiledPolicies } from './policies';
import type { PreviewExcludedDate } from './preview';

/*
 * What a dry run takes and returns (see dry-run.ts for the rules it applies, docs/testing.md for users).
 */

/** A span of time, `[from, to)`. */
export interface TimeSpan {
  from: Date | string;
  to: Date | string;
}

/** What-if assumptions of a dry run. */
export interface DryRunAssumptions {
  /** How long each run's steps take (with a worker up). @default 0: runs take no time */
  runDuration?: Duration;
  /**
   * Spans with no worker polling the job's task queue: a run due then waits for the end of the span (its
   * first workflow task), then the guards judge it; a run in flight pauses and resumes after. @default none
   */
  workersDown?: TimeSpan[];
}

/** Options of {@link dryRun}: the window `(from, to]` and the assumptions. */
export interface DryRunOptions extends DryRunAssumptions {
  /** Occurrences strictly after this instant are listed. */
  from: Date | string;
  /** ... up to and including this one (at most 1,000 occurrences in all). */
  to: Date | string;
  /** Zone of a trigger that names none (the scheduler's `timezone`). @default 'UTC' */
  defaultTimezone?: string;
  /** DST policy of a cron or calendar trigger that sets none (the scheduler's `dst`). */
  defaultDst?: DstPolicy;
}

/**
 * What happens to one occurrence: `run` (its steps run, at `startsAt`), `buffered` (Temporal held it behind
 * the run before, then its steps ran, at `startsAt`), `coalesced` (Temporal skipped it while the run before
 * waited for a worker; that run, `coalescedInto`, stood for the occurrences it missed), `skip` (no step
 * runs: see {@link DryRunSkipReason}).
 */
export type DryRunDecision = 'run' | 'skip' | 'buffered' | 'coalesced';

/**
 * Why an occurrence runs no step: `overlap` (Temporal did not start it: a run was open, or it was ended by
 * the next one's CANCEL_OTHER / TERMINATE_OTHER before its first step), `misfire`, `max-instances` and
 * `dst` (the run skipped itself, as the job guards decide), `paused` (the job is paused).
 */
export type DryRunSkipReason = 'overlap' | 'misfire' | 'max-instances' | 'dst' | 'paused';

/** One occurrence of the window, oldest first. */
export interface DryRunOccurrence {
  /** Nominal time, UTC ISO (`TemporalScheduledStartTime` of its run). */
  nominal: string;
  /** The same instant in the trigger's zone, with its offset. */
  local: string;
  decision: DryRunDecision;
  reason?: DryRunSkipReason;
  /** `run`/`buffered`: when its first workflow task (and first step) starts. */
  startsAt?: string;
  /** `run`/`buffered`: when its steps end (`startsAt` plus `runDuration` of worker time), or when it was cut short. */
  endsAt?: string;
  /** A run ended by the next occurrence's overlap policy: `cancelled` (CANCEL_OTHER) or `terminated`. */
  cutShort?: 'cancelled' | 'terminated';
  /** `misfire`, `max-instances`, `dst`: when a worker judged it (its first workflow task). */
  judgedAt?: string;
  /** How late it was judged, in ms, after its nominal time (or after `standsFor`). */
  lateMs?: number;
  /** A late run of a coalescing job: the latest occurrence it stood for, as the guard records it. */
  standsFor?: string;
  /** `coalesced`: the nominal time of the run that stood for it. */
  coalescedInto?: string;
  /** With `jitter`: the end of the window the run is started in by the server (see `preview`). */
  jitterUntil?: string;
}

/** What {@link dryRun} returns. */
export interface JobDryRun {
  /** The zone `local` times are in. */
  timezone: string;
  /** The window, UTC ISO: occurrences in `(from, to]`. */
  from: string;
  to: string;
  /** The policies applied, in Temporal's terms plus the guards' (see `compilePolicies`). */
  policies: {
    overlap: CompiledPolicies['overlap'];
    maxInstances: number;
    misfireGraceMs?: number;
    runDurationMs: number;
  };
  /** Every occurrence the server fires in the window, with its decision. */
  occurrences: DryRunOccurrence[];
  /** Counts by decision (`run`, `buffered`, `coalesced`, `skip:<reason>`). */
  totals: Record<string, number>;
  /** Clock changes in the window where DST makes the job skip, shift or repeat a run (as `preview` words them). */
  dstWarnings: DstWarning[];
  /** Dates in the window on which `exclude`/`businessDays` removed runs (as `preview` reports them). */
  excludedDates: PreviewExcludedDate[];
}

import type { Client } from '@temporalio/client';
import type { JobAlertEvent } from '../../../workflows/alert-types';
import type { ScheduleCounts } from '../../../workflows/alerts/watchdog-defs';
import { raiseOnce } from './evaluator-raise';
import { latestCompletedRun, type CompletedRun, type JobReading } from './evaluator-sources';
import { clockStart, countsDueAfter, deadlineOf, type WatchedJob } from './evaluator-state';
import { accountTimes, editedBetween } from './evaluator-times';

/*
 * What the evaluator does for one job when something is due: the dead-man check (silent), the close of a
 * silent period (recovered) and the read of the server's counts (missed). Each alert is raised under the
 * id of its cause (evaluator-raise.ts): a check repeated, here or by a rebuilt evaluator, raises nothing new.
 */

/** What the checks need of their evaluator. */
export interface CheckContext {
  client: Client;
  /** The alert task queue the deliveries run on. */
  taskQueue: string;
  /** Reads the job again (its schedule); undefined when it is gone or no longer served here. */
  reread: (jobId: string) => Promise<JobReading | undefined>;
  /** The nominal times of the job's runs the namespace-wide listing of started runs showed (epoch ms). */
  runsOf: (jobId: string) => readonly number[];
  /** The nominal times of the job's runs from `from` on, read from visibility for this job alone. */
  confirmRuns: (jobId: string, from: number) => Promise<number[]>;
  /** Whether the schedule started the run of that nominal time (read by its workflow id, no visibility). */
  runExists: (jobId: string, runWorkflowId: string, nominal: number) => Promise<boolean>;
}

/** A time past its attempts' end that the schedule's workflow has not gone past is read again after this. */
const NOT_PROCESSED_RECHECK_MS = 30_000;

/**
 * In a storm of due checks, how long a time with no run seen yet waits before the job is read (unless the
 * server is done with it sooner, evaluator-times.ts): the server fires thousands of schedules due at one
 * minute over minutes (10,000 on 2 cores: 9,019 had started 150 s after), and a describe meanwhile waits
 * behind that firing (it is answered by the schedule's own workflow) or fails. A skip the server counts
 * with no run (overlap of a run still open) is read this much later at most.
 */
export const STORM_WAIT_MS = 180_000;

/** The reads owed after a storm are spread over this much time per job answered without one. */
const VERIFY_SPREAD_PER_JOB_MS = 50;

/**
 * When the read owed by a job answered from its runs in a storm of `inStorm` due checks is made: no sooner
 * than {@link STORM_WAIT_MS} after the answer, then spread over 50 ms per job (10,000 jobs: about 8
 * minutes). Not while the server still starts the storm's runs (10,000 raw schedules due at one minute
 * started over 142 s on 2 cores): a describe is answered by the schedule's own workflow, busy firing, and
 * competes with the starts (docs/performance.md, the 03:00 storm). `random` in [0, 1).
 */
export function stormVerifyAt(answeredAt: number, inStorm: number, random: number): number {
  return answeredAt + STORM_WAIT_MS + random * inStorm * VERIFY_SPREAD_PER_JOB_MS;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Takes a completed run: moves the clock (never back). */
export function sawSuccess(job: WatchedJob, run: CompletedRun): void {
  if (!job.lastSuccessAt || Date.parse(run.at) > Date.parse(job.lastSuccessAt)) {
    job.lastSuccessAt = run.at;
    job.lastRun = run;
  }
}

/**
 * `silent` once the deadline passed with no completed run: confirmed first by a fresh read of the schedule
 * (a job gone, paused or changed is obeyed) and of the job's latest completed run in visibility (a run
 * that closed since the last wave moves the clock and nothing is raised). Returns false when the job is
 * gone and must be dropped.
 */
export async function checkSilent(ctx: CheckContext, job: WatchedJob, now: number): Promise<boolean> {
  const reading = await ctx.reread(job.jobId);
  if (!reading?.config) return false;
  job.config = reading.config;
  job.paused = reading.paused;
  const latest = await latestCompletedRun(ctx.client, job.jobId);
  if (latest) sawSuccess(job, latest);
  const target = job.config.onSilent;
  if (now < deadlineOf(job) || !target) return true;
  const since = clockStart(job);
  const within = job.config.expectSuccessWithinMs!;
  const why = reading.paused
    ? 'its schedule is paused'
    : 'no run completed: check its worker and its failures';
  const event: JobAlertEvent = {
    kind: 'silent',
    jobId: job.jobId,
    text: `job "${job.jobId}" has had no successful run for ${within} ms (since ${since}): ${why}`,
    at: iso(now),
    lastSuccessAt: since,
    expectSuccessWithinMs: within,
    schedule: reading.paused ? 'paused' : 'active',
  };
  await raiseOnce(
    ctx.client,
    ctx.taskQueue,
    { kind: 'silent', jobId: job.jobId, lastSuccessAt: since },
    target,
    event,
  );
  job.silentSince = since;
  return true;
}

/** `recovered` when a run completed after the silent period's start; the period closes. */
export async function checkRecovered(ctx: CheckContext, job: WatchedJob, now: number): Promise<void> {
  const since = job.silentSince;
  if (since === undefined || !job.lastSuccessAt) return;
  if (Date.parse(job.lastSuccessAt) <= Date.parse(since)) return;
  const target = job.config.onSilent;
  if (target) {
    const run = job.lastRun;
    const event: JobAlertEvent = {
      kind: 'recovered',
      jobId: job.jobId,
      text: `job "${job.jobId}" recovered: run ${run?.workflowId ?? 'of the job'} completed (silent since ${since})`,
      at: iso(now),
      ...(run ? { workflowId: run.workflowId, runId: run.runId } : {}),
      lastSuccessAt: since,
      ...(job.config.expectSuccessWithinMs !== undefined
        ? { expectSuccessWithinMs: job.config.expectSuccessWithinMs }
        : {}),
    };
    await raiseOnce(
      ctx.client,
      ctx.taskQueue,
      { kind: 'recovered', jobId: job.jobId, lastSuccessAt: since },
      target,
      event,
    );
  }
  job.silentSince = undefined;
}

const GAINS: [
  NonNullable<JobAlertEvent['reason']> & ('catchup-window' | 'overlap'),
  keyof ScheduleCounts,
  string,
][] = [
  ['catchup-window', 'missedCatchupWindow', 'missed past the catch-up window'],
  ['overlap', 'overlapSkipped', 'skipped by the overlap policy'],
];

/**
 * Reads the schedule's counters and raises `missed` for what they gained since the last report, under
 * the counter value reached (so a report is never made twice). Returns false when the job is gone.
 */
export async function checkCounts(ctx: CheckContext, job: WatchedJob, now: number): Promise<boolean> {
  // A nominal time passed since the last read: this read is the one after it (spaced, see countsDueAfter).
  const afterNominal = job.nextActionAt !== undefined && job.nextActionAt <= now;
  const reading = await ctx.reread(job.jobId);
  if (!reading?.config) return false;
  job.config = reading.config;
  job.paused = reading.paused;
  job.nextActionAt = reading.nextActionAt;
  const before = job.counts;
  const after = reading.counts;
  const target = job.config.onMissed;
  if (before && target) {
    for (const [reason, key, what] of GAINS) {
      const count = after[key] - before[key];
      if (count <= 0) continue;
      const event: JobAlertEvent = {
        kind: 'missed',
        jobId: job.jobId,
        text: `job "${job.jobId}": ${count} occurrence(s) ${what} since ${job.countsAt ?? 'the watch began'}`,
        at: iso(now),
        reason,
        count,
      };
      await raiseOnce(
        ctx.client,
        ctx.taskQueue,
        { kind: 'missed', jobId: job.jobId, reason, count: after[key], createdAt: job.createdAt },
        target,
        event,
      );
    }
  }
  const gained = before !== undefined && GAINS.some(([, key]) => after[key] > before[key]);
  await accountExpected(ctx, job, reading, now, gained);
  job.counts = after;
  job.countsAt = iso(now);
  if (afterNominal) job.nominalCheckAt = now;
  job.hinted = undefined;
  job.verifyAt = undefined;
  job.countsDueAt = countsDueAfter(job, now);
  return true;
}

/** Takes a read's listed times, jitter, catch-up window and token as the job's expectations. */
export function expectFrom(job: WatchedJob, reading: JobReading, pending: readonly number[]): void {
  // A paused schedule takes none of the times it lists.
  const listed = reading.paused ? [] : reading.expectedTimes;
  job.expected = [...new Set([...pending, ...listed])].sort((a, b) => a - b);
  job.jitterMs = reading.jitterMs;
  job.catchupMs = reading.catchupMs;
  job.editToken = reading.editToken;
  job.remainingActions = reading.remainingActions;
  job.runWorkflowId = reading.runWorkflowId;
}

/**
 * Accounts for the times the job's last read listed that have passed (evaluator-times.ts): `missed` with
 * reason `not-started` for each one no run stands for once past its catch-up window, unless something
 * else explains it (an edit, a pause or resume since that read; counters that grew, which raise their
 * own alert; a start held in the schedule's buffer, which waits). Then the read's own times are expected.
 */
async function accountExpected(
  ctx: CheckContext,
  job: WatchedJob,
  reading: JobReading,
  now: number,
  gained: boolean,
): Promise<void> {
  const passed = editedBetween(job, reading) ? [] : (job.expected ?? []).filter((t) => t <= now);
  // Counters that grew since the last read stand for passed times the runs do not show, without saying
  // which: every passed time is taken as counted, now and later (their own alert covers them; the checker
  // saw two overlap skips reported as counted, then again as not-started once settled).
  if (passed.length === 0 || gained) return expectFrom(job, reading, []);
  const jitter = job.jitterMs ?? reading.jitterMs;
  const catchup = job.catchupMs ?? reading.catchupMs;
  // What the schedule's workflow has gone past (a spent schedule lists no time: all of them).
  const processed = reading.expectedTimes[0] ?? Infinity;
  let account = accountTimes(passed, ctx.runsOf(job.jobId), jitter, catchup, now, processed);
  if (account.notStarted.length > 0) {
    // Confirmed by this job's own runs first: the namespace-wide listing may have missed one.
    const own = await ctx.confirmRuns(job.jobId, Math.min(...account.notStarted) - jitter - 1000);
    account = accountTimes(passed, [...ctx.runsOf(job.jobId), ...own], jitter, catchup, now, processed);
  }
  // A time the server has not gone past yet is read again later, not at every wave.
  if (account.waiting.some((t) => t >= processed)) job.readAfter = now + NOT_PROCESSED_RECHECK_MS;
  else job.readAfter = undefined;
  if (account.notStarted.length > 0 && jitter === 0 && job.runWorkflowId !== undefined) {
    // Without jitter a time is its run's nominal time: the run's own workflow is read, past any
    // visibility lag (a run that started but is not listed yet is not reported).
    const runWorkflowId = job.runWorkflowId;
    const found = await Promise.all(
      account.notStarted.map((t) => ctx.runExists(job.jobId, runWorkflowId, Math.floor(t / 1000) * 1000)),
    );
    account.notStarted = account.notStarted.filter((_, i) => !found[i]);
  }
  const buffered = reading.bufferSize > 0;
  const target = job.config.onMissed;
  if (target && !buffered && !reading.paused) {
    for (const t of account.notStarted) {
      const nominal = iso(t);
      const window = Math.round(catchup / 1000);
      const event: JobAlertEvent = {
        kind: 'missed',
        jobId: job.jobId,
        text: `job "${job.jobId}": the occurrence of ${nominal} never started: the server gave up starting it after its catch-up window (${window} s) and counted nothing (was Temporal or its database down, or a workflow of the run's id already there?)`,
        at: iso(now),
        reason: 'not-started',
        nominalTimes: [nominal],
        count: 1,
      };
      await raiseOnce(
        ctx.client,
        ctx.taskQueue,
        {
          kind: 'missed',
          jobId: job.jobId,
          reason: 'not-started',
          nominalTime: nominal,
          createdAt: job.createdAt,
        },
        target,
        event,
      );
    }
  }
  // Held in the buffer: they may still start (the buffer drains as runs end).
  expectFrom(job, reading, buffered ? [...account.waiting, ...account.notStarted] : account.waiting);
}

/**
 * A due counts check answered from the runs seen alone, for a storm of due checks (thousands of jobs at one
 * nominal time): every passed time has a run, so nothing was missed and no read is needed now (one is owed,
 * `verifyAt`, spread over the minutes after). `wait`: a passed time has no run seen yet and may still get one;
 * `read`: the job must be read.
 */
export function checkByRuns(job: WatchedJob, runs: readonly number[], now: number): 'done' | 'wait' | 'read' {
  if (job.expected === undefined || job.jitterMs === undefined || job.catchupMs === undefined) return 'read';
  const account = accountTimes(job.expected, runs, job.jitterMs, job.catchupMs, now);
  if (account.notStarted.length > 0 || account.future.length === 0) return 'read';
  if (account.waiting.length > 0) return now < Math.min(...account.waiting) + STORM_WAIT_MS ? 'wait' : 'read';
  job.expected = account.future;
  job.nextActionAt = account.future[0];
  job.nominalCheckAt = now;
  job.countsDueAt = countsDueAfter(job, now);
  return 'done';
}

/**
 * The passed times of `expected` once settled, from the runs seen alone: true when every one has a run
 * (nothing to read); false when one has none (the job must be read: checkCounts confirms and raises).
 */
export function settleByRuns(job: WatchedJob, runs: readonly number[], now: number): boolean {
  if (job.expected === undefined || job.jitterMs === undefined || job.catchupMs === undefined) return false;
  const account = accountTimes(job.expected, runs, job.jitterMs, job.catchupMs, now);
  if (account.notStarted.length > 0) return false;
  job.expected = [...account.waiting, ...account.future];
  return true;
}

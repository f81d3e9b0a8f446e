import type { Client } from '@temporalio/client';
import type { JobAlertEvent } from '../../../workflows/alert-types';
import type { ScheduleCounts } from '../../../workflows/alerts/watchdog-defs';
import { raiseOnce } from './evaluator-raise';
import { latestCompletedRun, type CompletedRun, type JobReading } from './evaluator-sources';
import { clockStart, countsDueAfter, deadlineOf, type WatchedJob } from './evaluator-state';

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
  if (reading.nextActionAt !== undefined) job.nextActionAt = reading.nextActionAt;
  else delete job.nextActionAt;
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
  job.counts = after;
  job.countsAt = iso(now);
  if (afterNominal) job.nominalCheckAt = now;
  job.countsDueAt = countsDueAfter(job, now);
  return true;
}

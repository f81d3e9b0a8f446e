import { log, patched, proxyActivities, upsertMemo, workflowInfo } from '@temporalio/workflow';
import type * as schedulerActivities from '../activities/scheduler-activities';
import { JUDGED_AT_MEMO, type RunJobContext } from './run-types';

/*
 * APScheduler's misfire grace for runs that do not coalesce, after an outage. With overlap BUFFER_ALL every
 * missed occurrence gets its own run, but Temporal starts each only once the one before has closed, and
 * that wait (Temporal's, not the job's) would count against the grace: in a long queue of skipped runs,
 * the occurrences that were within the grace when a worker came back were past it by their turn. So a
 * late buffered run is judged when its skipped predecessor was (the rule: src/activities/judged-at.ts),
 * and records the instant it was judged at for its successor.
 *
 * Persisted: the patch id below, the activity name and the memo key (JUDGED_AT_MEMO).
 */

/** Patch marker of runs that may be judged at their skipped predecessor's instant. Never rename. */
export const JUDGED_AT_PATCH = 'tflow-buffered-judged-at';

/**
 * Temporal fires a schedule at most once a second, so a run judged less than a second after its nominal
 * time passes nothing on (its successor was not due yet), and a run less than a second late could only
 * inherit an instant from that same second: it matters to a grace under a second alone, so such runs ask
 * nothing and are judged at their first workflow task.
 */
const NO_SUCCESSOR_DUE_BELOW_MS = 1_000;

const { tflowJudgedAt } = proxyActivities<typeof schedulerActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5, initialInterval: '200ms', maximumInterval: '5s' },
});

/** How a run is judged against its misfire grace. */
export interface Judgement {
  /** How late the run is at the instant it is judged (undefined for runs not started by a schedule). */
  lateMs: number | undefined;
  /** The instant it was judged at (ISO 8601), when a lookup decided it; else its first workflow task. */
  judgedAt?: string;
}

/**
 * When this scheduled run of a job that does not coalesce is judged, given its lag (measured in this, its
 * first workflow task). Only a run too late by its own lag, and at least a second late, asks the server:
 * any other run is judged at its first workflow task at no cost. Call before any await.
 */
export async function judgedBehindPredecessor(
  job: RunJobContext,
  lagMs: number | undefined,
): Promise<Judgement> {
  const grace = job.misfireGraceMs;
  // maxInstances > 1 is overlap ALLOW_ALL: every run starts at its own time, none is queued.
  const queued = !job.coalesce && (job.maxInstances ?? 1) === 1;
  if (!queued || grace === undefined || lagMs === undefined) return { lateMs: lagMs };
  if (lagMs <= grace || lagMs < NO_SUCCESSOR_DUE_BELOW_MS) return { lateMs: lagMs };
  if (!patched(JUDGED_AT_PATCH)) return { lateMs: lagMs };
  const info = workflowInfo();
  const now = Date.now();
  const nominal = now - lagMs;
  let judgedAt = now;
  try {
    const inherited = await tflowJudgedAt({
      jobId: job.jobId,
      workflowId: info.workflowId,
      runId: info.runId,
      nominal: new Date(nominal).toISOString(),
      firstTask: new Date(now).toISOString(),
    });
    if (inherited !== null) judgedAt = Date.parse(inherited);
  } catch (err) {
    // Without the server's answer the run is judged at its first workflow task, as before.
    log.warn('could not read when the previous run was judged', { jobId: job.jobId, error: String(err) });
  }
  const iso = new Date(judgedAt).toISOString();
  upsertMemo({ [JUDGED_AT_MEMO]: iso });
  if (judgedAt !== now) {
    log.info('late buffered run judged when its skipped predecessor was', {
      jobId: job.jobId,
      judgedAt: iso,
      lateMs: judgedAt - nominal,
      ownLagMs: lagMs,
    });
  }
  return { lateMs: judgedAt - nominal, judgedAt: iso };
}

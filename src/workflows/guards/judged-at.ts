import { log, patched, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { JUDGED_AT_PATCH } from './guard-defs';
import { tflowJudgedAt } from './lookup-activities';
import { FIRST_TASK_MEMO, JUDGED_AT_MEMO, type RunJobContext } from '../run-types';

/*
 * APScheduler's misfire grace for runs that do not coalesce, after an outage. With overlap BUFFER_ALL every
 * missed occurrence gets its own run, but Temporal starts each only once the one before has closed, and
 * that wait (Temporal's, not the job's) would count against the grace: in a long queue of skipped runs,
 * the occurrences that were within the grace when a worker came back were past it by their turn. So a
 * late run queued behind its predecessor is judged when it could have started (the rule:
 * src/activities/guards/judged-at-lookup.ts), and records the instant it was judged at for its successor.
 *
 * Persisted: the patch id (JUDGED_AT_PATCH, guard-defs.ts), the activity name and the memo keys
 * (JUDGED_AT_MEMO, FIRST_TASK_MEMO).
 */

/**
 * A run less than a second late asks nothing and is judged at its first workflow task: it can only have
 * been queued behind a predecessor that ended within that second, which matters to a grace under a second
 * alone. Its successor, if queued behind it, counts from its close (at most that second too much).
 */
const NO_LOOKUP_BELOW_MS = 1_000;

/** How a run is judged against its misfire grace. */
export interface Judgement {
  /** How late the run is at the instant it is judged (undefined for runs not started by a schedule). */
  lateMs: number | undefined;
  /** The instant it was judged at (ISO 8601), when a lookup decided it; else its first workflow task. */
  judgedAt?: string;
}

/**
 * When this scheduled run of a job that does not coalesce is judged, given its lag (measured in this, its
 * first workflow task). Only a run of a job with a misfire grace that is at least a second late asks the
 * server; any other run is judged at its first workflow task at no cost. Call before any await.
 */
export function judgedBehindPredecessor(
  job: RunJobContext,
  lagMs: number | undefined,
): Judgement | Promise<Judgement> {
  // Not async: most runs are judged here at no cost (see judgedOccurrence in coalesce.ts).
  const grace = job.misfireGraceMs;
  // maxInstances > 1 is overlap ALLOW_ALL: every run starts at its own time, none is queued.
  const mayQueue = !job.coalesce && (job.maxInstances ?? 1) === 1;
  if (!mayQueue || grace === undefined || lagMs === undefined) return { lateMs: lagMs };
  // Even a run within the grace by its own lag asks: its successor counts its time from when it was judged.
  if (lagMs < NO_LOOKUP_BELOW_MS) return { lateMs: lagMs };
  if (!patched(JUDGED_AT_PATCH)) return { lateMs: lagMs };
  return judgedByLookup(job, lagMs);
}

/** The lookup of {@link judgedBehindPredecessor}: when the run's predecessor ended, from the server. */
async function judgedByLookup(job: RunJobContext, lagMs: number): Promise<Judgement> {
  const info = workflowInfo();
  const now = Date.now();
  const nominal = now - lagMs;
  let judgedAt = now;
  try {
    const answer = await tflowJudgedAt({
      jobId: job.jobId,
      workflowId: info.workflowId,
      runId: info.runId,
      nominal: new Date(nominal).toISOString(),
      firstTask: new Date(now).toISOString(),
    });
    if (answer !== null) judgedAt = Date.parse(answer);
  } catch (err) {
    // Without the server's answer the run is judged at its first workflow task, as before.
    log.warn('could not read when the previous run ended', { jobId: job.jobId, error: String(err) });
  }
  const iso = new Date(judgedAt).toISOString();
  upsertMemo({ [JUDGED_AT_MEMO]: iso, [FIRST_TASK_MEMO]: new Date(now).toISOString() });
  if (judgedAt !== now) {
    log.info('late buffered run judged when it could have started', {
      jobId: job.jobId,
      judgedAt: iso,
      lateMs: judgedAt - nominal,
      ownLagMs: lagMs,
    });
  }
  return { lateMs: judgedAt - nominal, judgedAt: iso };
}

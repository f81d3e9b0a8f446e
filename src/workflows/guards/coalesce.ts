import { log, patched, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { COALESCE_PATCH } from './guard-defs';
import { tflowLatestOccurrence } from './lookup-activities';
import { STANDS_FOR_MEMO, type RunJobContext } from '../run-types';

/*
 * APScheduler's coalesce, after an outage. With overlap SKIP, the first occurrence missed while no worker
 * ran was started by Temporal and waits for a worker; the later ones were skipped because it was open. When
 * a worker picks it up, it stands for the latest of them, as APScheduler's coalesce=True runs the latest
 * missed run time once: the misfire grace counts from that occurrence.
 *
 * Persisted: the patch id (COALESCE_PATCH, guard-defs.ts), the activity name and the memo key
 * (STANDS_FOR_MEMO).
 */

/**
 * Temporal fires a schedule at most once a second (second resolution, intervals of 1 s or more, jitter
 * only delays), so a run less late than this has no later occurrence to stand for: no activity is needed.
 */
const NO_LATER_OCCURRENCE_BELOW_MS = 1_000;

/** The occurrence a scheduled run is judged by. */
export interface JudgedOccurrence {
  /** How late the run is after that occurrence (undefined for runs not started by a schedule). */
  lateMs: number | undefined;
  /** The later occurrence the run stands for (ISO 8601); undefined when it stands for its own. */
  standsFor?: string;
}

/**
 * Which occurrence this scheduled run stands for, given its lag (measured in this, its first workflow
 * task, so that `Date.now()` is when a worker first handled it). Call before any await.
 */
export function judgedOccurrence(
  job: RunJobContext,
  lagMs: number | undefined,
): JudgedOccurrence | Promise<JudgedOccurrence> {
  // Not async: most runs are judged here at no cost, and an async frame would add promises to every
  // scheduled run (each a stack capture by the SDK's promise hook); the lookup is.
  if (!job.coalesce || lagMs === undefined || lagMs < NO_LATER_OCCURRENCE_BELOW_MS) return { lateMs: lagMs };
  // Only a run past its grace needs the later occurrence: within it (or with no grace) the run runs
  // whichever occurrence it stands for, since a later one is even less late. This keeps the lookup off
  // the hot path of a burst, where many runs start a few seconds late (bench/fire-burst: server CPU per
  // run 46 -> see the commit message).
  if (job.misfireGraceMs === undefined || lagMs <= job.misfireGraceMs) return { lateMs: lagMs };
  if (!patched(COALESCE_PATCH)) return { lateMs: lagMs };
  return latestOccurrence(job, lagMs);
}

/** The lookup of {@link judgedOccurrence}: the latest missed occurrence, from the server. */
async function latestOccurrence(job: RunJobContext, lagMs: number): Promise<JudgedOccurrence> {
  const now = Date.now();
  let latest: string | null;
  try {
    latest = await tflowLatestOccurrence({
      jobId: job.jobId,
      workflowId: workflowInfo().workflowId,
      after: new Date(now - lagMs).toISOString(),
      until: new Date(now).toISOString(),
    });
  } catch (err) {
    // Without the server's answer the run is judged by its own nominal time, as before coalescing.
    log.warn('could not find the latest missed occurrence', { jobId: job.jobId, error: String(err) });
    return { lateMs: lagMs };
  }
  if (latest === null) return { lateMs: lagMs };
  upsertMemo({ [STANDS_FOR_MEMO]: latest });
  const lateMs = now - Date.parse(latest);
  log.info('late scheduled run stands for the latest missed occurrence', {
    jobId: job.jobId,
    standsFor: latest,
    lateMs,
    ownLagMs: lagMs,
  });
  return { lateMs, standsFor: latest };
}

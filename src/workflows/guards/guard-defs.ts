/*
 * The activities the job guards (job-guards.ts, coalesce.ts, judged-at.ts) call, and what they are asked:
 * implemented in activities/guards/ (the worker registers them with schedulerActivities). Activity names
 * are persisted in histories: never rename one; add optional fields only. The guards' patch ids are here
 * too: never rename one.
 */

/** Patch marker of runs that may stand for a later occurrence (coalesce.ts). */
export const COALESCE_PATCH = 'tflow-coalesce-latest-occurrence';
/** Patch marker of late runs that may be judged when they could have started (judged-at.ts). */
export const JUDGED_AT_PATCH = 'tflow-buffered-judged-at';
/** Patch marker of runs that renew their job's horizon (job-guards.ts). */
export const HORIZON_RENEWAL_PATCH = 'tflow-horizon-renewal';
/** Patch marker of runs that the DST policy may skip (job-guards.ts). */
export const DST_GUARD_PATCH = 'tflow-dst-guard';

/** What `tflowLatestOccurrence` is asked. Times are ISO 8601 strings (activity input is JSON). */
export interface LatestOccurrenceRequest {
  jobId: string;
  /** Id of the asking run: its own action does not bound the search. */
  workflowId: string;
  /** The run's nominal time: occurrences strictly after it count. */
  after: string;
  /** When a worker first handled the run: occurrences due by then count. */
  until: string;
}

/** What `tflowJudgedAt` is asked. Times are ISO 8601 strings (activity input is JSON). */
export interface JudgedAtRequest {
  jobId: string;
  /** The asking run. */
  workflowId: string;
  runId: string;
  /** The run's nominal time. */
  nominal: string;
  /** Its first workflow task: when a worker first handled it. */
  firstTask: string;
}

/** The scheduler's activities a scheduled run calls from its guards. */
export interface JobGuardActivities {
  /** Deletes a spent one-off job; false when it is not spent (or gone). */
  tflowFinishOneOff: (jobId: string) => Promise<boolean>;
  /** The latest occurrence a late coalescing run stands for (ISO 8601), or null for its own. */
  tflowLatestOccurrence: (req: LatestOccurrenceRequest) => Promise<string | null>;
  /** The instant a late buffered run is judged at (ISO 8601), or null for its own first task. */
  tflowJudgedAt: (req: JudgedAtRequest) => Promise<string | null>;
  /** Renews the job's horizon; its new end (UTC ISO), or null when nothing was written. */
  tflowRenewHorizon: (jobId: string) => Promise<string | null>;
}

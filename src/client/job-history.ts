import {
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import {
  OUTCOME_SEARCH_ATTRIBUTE,
  PIPELINE_SEARCH_ATTRIBUTE,
  SCHEDULED_BY_ID_ATTRIBUTE,
  SCHEDULED_START_TIME_ATTRIBUTE,
} from '../workflows/search-attributes';
import { skipReasonOf } from '../workflows/outcomes';
import { JUDGED_AT_MEMO, STANDS_FOR_MEMO } from '../workflows/run-types';
import type { JobRun, JobRunStatus } from './job-types';
import { queryLiteral } from './query-literal';

/*
 * Runs of a job from Temporal visibility (`TemporalScheduledById`). Visibility is eventually consistent:
 * a run started a moment ago may be missing or still show as running. SQLite visibility has no ORDER BY,
 * so runs are sorted here.
 */

const STATUS: Record<string, JobRunStatus> = {
  RUNNING: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed-out',
  CONTINUED_AS_NEW: 'continued-as-new',
};

/** A run as visibility (or a describe call) reports it. */
export function toRun(wf: Omit<WorkflowExecutionInfo, 'raw'>): JobRun {
  const outcome = wf.typedSearchAttributes.get(OUTCOME_SEARCH_ATTRIBUTE);
  const nominal = wf.typedSearchAttributes.get(SCHEDULED_START_TIME_ATTRIBUTE);
  const skipReason = skipReasonOf(outcome);
  const status = skipReason ? 'skipped' : (STATUS[wf.status.name] ?? 'running');
  const standsFor = wf.memo?.[STANDS_FOR_MEMO];
  const judgedAt = wf.memo?.[JUDGED_AT_MEMO];
  const pipeline = wf.typedSearchAttributes.get(PIPELINE_SEARCH_ATTRIBUTE);
  const jobId = wf.typedSearchAttributes.get(SCHEDULED_BY_ID_ATTRIBUTE);
  return {
    workflowId: wf.workflowId,
    runId: wf.runId,
    ...(pipeline !== undefined ? { pipeline } : {}),
    ...(jobId !== undefined ? { jobId } : {}),
    status,
    ...(skipReason ? { skipReason } : {}),
    ...(nominal ? { scheduledAt: nominal } : {}),
    ...(typeof standsFor === 'string' ? { standsFor: new Date(standsFor) } : {}),
    ...(typeof judgedAt === 'string' ? { judgedAt: new Date(judgedAt) } : {}),
    startedAt: wf.startTime,
    ...(wf.closeTime
      ? { closedAt: wf.closeTime, durationMs: wf.closeTime.getTime() - wf.startTime.getTime() }
      : {}),
  };
}

/** The failure message of a closed run (undefined when it did not fail). */
export async function failureOf(
  client: Client,
  run: Pick<JobRun, 'workflowId' | 'runId'>,
): Promise<string | undefined> {
  try {
    await client.workflow.getHandle(run.workflowId, run.runId, { followRuns: false }).result();
    return undefined;
  } catch (err) {
    if (err instanceof WorkflowFailedError) return err.cause?.message ?? err.message;
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * The job's runs, newest first (by start time), at most `limit`, failed ones with their failure message.
 *
 * @param recent runs the schedule itself reports (its recent and running actions, strongly consistent):
 * each one visibility does not show yet, or still shows as running, is described directly, so the newest
 * runs are exact even while visibility lags.
 */
export async function listJobRuns(
  client: Client,
  jobId: string,
  limit: number,
  recent: { workflowId: string; runId: string }[] = [],
): Promise<JobRun[]> {
  const byRun = new Map<string, JobRun>();
  for await (const wf of client.workflow.list({
    query: `${SCHEDULED_BY_ID_ATTRIBUTE.name} = ${queryLiteral(jobId)}`,
  })) {
    byRun.set(wf.runId, toRun(wf));
  }
  await Promise.all(
    recent
      .filter((r) => byRun.get(r.runId)?.status === undefined || byRun.get(r.runId)?.status === 'running')
      .map(async (r) => {
        try {
          const wf = await client.workflow.getHandle(r.workflowId, r.runId).describe();
          byRun.set(wf.runId, toRun(wf));
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
      }),
  );
  return newestWithFailures(client, [...byRun.values()], limit);
}

/**
 * The `limit` newest of `runs` (visibility has no ORDER BY on SQLite: sorted here), each failed one with
 * its failure read from its result.
 */
export async function newestWithFailures(client: Client, runs: JobRun[], limit: number): Promise<JobRun[]> {
  runs.sort(
    (a, b) => b.startedAt.getTime() - a.startedAt.getTime() || a.workflowId.localeCompare(b.workflowId),
  );
  const page = runs.slice(0, limit);
  await Promise.all(
    page
      .filter((r) => r.status === 'failed')
      .map(async (r) => {
        const failure = await failureOf(client, r);
        if (failure !== undefined) r.failure = failure;
      }),
  );
  return page;
}

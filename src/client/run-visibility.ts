import { WorkflowFailedError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import {
  OUTCOME_SEARCH_ATTRIBUTE,
  PIPELINE_SEARCH_ATTRIBUTE,
  SCHEDULED_BY_ID_ATTRIBUTE,
  SCHEDULED_START_TIME_ATTRIBUTE,
} from '../workflows/search-attributes';
import { skipReasonOf } from '../workflows/outcomes';
import { JUDGED_AT_MEMO, STANDS_FOR_MEMO } from '../workflows/run-types';
import type { JobRun, JobRunStatus } from './run-types';

/*
 * Runs from Temporal visibility (or a describe call), as {@link JobRun}s: what the run listings, a run's
 * description and a job's history read. Visibility is eventually consistent: a run started a moment ago
 * may be missing or still show as running. SQLite visibility has no ORDER BY, so runs are sorted here.
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

/** A string literal of Temporal's list filter language. */
export function queryLiteral(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

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

import type { Client } from '@temporalio/client';
import { InvalidArgumentError } from '../../errors';
import { SKIPPED_OUTCOMES } from '../../workflows/outcomes';
import { PIPELINE_WORKFLOW_TYPE } from '../../workflows/run-types';
import {
  OUTCOME_SEARCH_ATTRIBUTE,
  PIPELINE_SEARCH_ATTRIBUTE,
  SCHEDULED_BY_ID_ATTRIBUTE,
} from '../../workflows/search-attributes';
import type { JobRun, JobRunStatus } from './run-types';
import { newestWithFailures, toRun } from './run-visibility';
import { keywordEquals, queryLiteral } from '../query-literal';

/*
 * Pipeline runs of every job and of none, from Temporal visibility, with the same record as a job's
 * history (run-visibility.ts). Visibility is eventually consistent, and SQLite visibility has no ORDER BY:
 * runs are sorted here.
 */

/** Filters of {@link listRuns}. */
export interface RunFilter {
  /** Only runs started by this job's schedule. */
  jobId?: string;
  /** Only runs of this pipeline. */
  pipeline?: string;
  /** Only runs with this status (`skipped`: runs that skipped their steps, misfire or max-instances). */
  status?: JobRunStatus;
  /** Only runs started at or after this instant. */
  since?: Date;
  /** Most runs returned, newest first. @default 20 */
  limit?: number;
}

/** Statuses a run filter accepts, as `tflow runs --status` spells them. */
export const RUN_STATUSES: readonly JobRunStatus[] = [
  'running',
  'completed',
  'failed',
  'skipped',
  'cancelled',
  'terminated',
  'timed-out',
  'continued-as-new',
];

const EXECUTION_STATUS: Record<JobRunStatus, string> = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  skipped: 'Completed',
  cancelled: 'Canceled',
  terminated: 'Terminated',
  'timed-out': 'TimedOut',
  'continued-as-new': 'ContinuedAsNew',
};

/**
 * The visibility query of a filter. Status `completed` and `skipped` are told apart after the query, and so
 * are a job id or pipeline name with a backslash, which the query can only narrow (see {@link keywordEquals}).
 */
export function runQuery(filter: RunFilter): string {
  const parts = [`WorkflowType = ${queryLiteral(PIPELINE_WORKFLOW_TYPE)}`];
  for (const [attr, value] of [
    [SCHEDULED_BY_ID_ATTRIBUTE.name, filter.jobId],
    [PIPELINE_SEARCH_ATTRIBUTE.name, filter.pipeline],
  ] as const) {
    const clause = value === undefined ? undefined : keywordEquals(attr, value).clause;
    if (clause !== undefined) parts.push(clause);
  }
  if (filter.status === 'skipped') {
    parts.push(`${OUTCOME_SEARCH_ATTRIBUTE.name} IN (${SKIPPED_OUTCOMES.map(queryLiteral).join(', ')})`);
  } else if (filter.status !== undefined) {
    if (!RUN_STATUSES.includes(filter.status)) {
      throw new InvalidArgumentError(
        'status',
        `status "${String(filter.status)}" is not a run status: use one of ${RUN_STATUSES.join(', ')}`,
      );
    }
    parts.push(`ExecutionStatus = ${queryLiteral(EXECUTION_STATUS[filter.status])}`);
  }
  if (filter.since !== undefined) parts.push(`StartTime >= ${queryLiteral(filter.since.toISOString())}`);
  return parts.join(' AND ');
}

/** Pipeline runs matching `filter`, newest first (by start time), failed ones with their failure message. */
export async function listRuns(client: Client, filter: RunFilter = {}): Promise<JobRun[]> {
  const runs: JobRun[] = [];
  for await (const wf of client.workflow.list({ query: runQuery(filter) })) {
    const run = toRun(wf);
    if (filter.status !== undefined && run.status !== filter.status) continue;
    if (filter.jobId !== undefined && run.jobId !== filter.jobId) continue;
    if (filter.pipeline !== undefined && run.pipeline !== filter.pipeline) continue;
    runs.push(run);
  }
  return newestWithFailures(client, runs, filter.limit ?? 20);
}

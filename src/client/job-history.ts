import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { SCHEDULED_BY_ID_ATTRIBUTE } from '../workflows/search-attributes';
import type { JobRun } from './run-types';
import { newestWithFailures, queryLiteral, toRun } from './run-visibility';

/*
 * Runs of a job from Temporal visibility (`TemporalScheduledById`), with the runs the schedule itself
 * reports (strongly consistent) described directly.
 */

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

import type { Client } from '@temporalio/client';
import { SKIPPED_OUTCOMES } from '../workflows/outcomes';
import { PIPELINE_WORKFLOW_TYPE } from '../workflows/run-types';
import { OUTCOME_SEARCH_ATTRIBUTE, SCHEDULED_BY_ID_ATTRIBUTE } from '../workflows/search-attributes';
import { queryLiteral } from './run-visibility';
import type { JobDescription, JobStats } from './job-types';

/*
 * getStats(): counters of every job (from their descriptions) plus what only visibility knows (runs in
 * flight, runs that skipped themselves, failed runs). Eventually consistent like every visibility read.
 */

const SCHEDULED_RUNS = `WorkflowType = '${PIPELINE_WORKFLOW_TYPE}' AND ${SCHEDULED_BY_ID_ATTRIBUTE.name} IS NOT NULL`;

/** Builds the stats of these jobs (described: with counters). */
export async function computeStats(client: Client, jobs: JobDescription[]): Promise<JobStats> {
  const ours = jobs.filter((j) => !j.foreign);
  let nextRun: JobStats['nextRun'];
  let missed = 0;
  let skippedOverlap = 0;
  for (const job of ours) {
    missed += job.counters?.missedCatchupWindow ?? 0;
    skippedOverlap += job.counters?.skippedOverlap ?? 0;
    const next = job.paused ? undefined : job.nextRunTimes[0];
    if (next && (!nextRun || next < nextRun.at)) nextRun = { jobId: job.id, at: next };
  }
  const [running, selfSkipped] = await Promise.all([
    client.workflow.count(`${SCHEDULED_RUNS} AND ExecutionStatus = 'Running'`),
    client.workflow.count(
      `${SCHEDULED_RUNS} AND ${OUTCOME_SEARCH_ATTRIBUTE.name} IN (${SKIPPED_OUTCOMES.map(queryLiteral).join(', ')})`,
    ),
  ]);
  // A job is failing when the latest run the schedule started has failed; asked in batches of ids.
  const latest = new Map(
    ours.flatMap((j) => (j.recentRuns[0] ? [[j.recentRuns[0].workflowId, j.id] as const] : [])),
  );
  const failingJobs = new Set<string>();
  const ids = [...latest.keys()];
  for (let i = 0; i < ids.length; i += 100) {
    const batch = ids
      .slice(i, i + 100)
      .map(queryLiteral)
      .join(', ');
    const query = `WorkflowId IN (${batch}) AND ExecutionStatus = 'Failed'`;
    for await (const wf of client.workflow.list({ query })) failingJobs.add(latest.get(wf.workflowId)!);
  }
  return {
    jobs: ours.length,
    paused: ours.filter((j) => j.paused).length,
    foreign: jobs.length - ours.length,
    running: running.count,
    ...(nextRun ? { nextRun } : {}),
    missed,
    skipped: skippedOverlap + selfSkipped.count,
    failingJobs: [...failingJobs].sort(),
  };
}

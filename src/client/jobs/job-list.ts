import type { Client } from '@temporalio/client';
import { describeJobIfAny } from './store/describe-job';
import { inLanes } from '../in-lanes';
import { isSpentOneOff, jobFromDescription, jobFromSummary } from './job-describe';
import type { JobDescription, JobFilter, JobSummary } from './job-types';
import { listSchedulesReadable } from '../schedule-listing';
import { undecodable } from './job-alert-health';

/*
 * listJobs(): one listing call per 1,000 schedules, and with `details` one describe per job, a bounded
 * number at a time.
 */

/** Describes several schedules at once, but not too many: a server is not a benchmark target. */
const DESCRIBE_CONCURRENCY = 16;

/**
 * The jobs (and foreign schedules) the filter keeps, sorted by id; spent one-offs are left out. With
 * `details`, each is described.
 */
export async function listJobs(client: Client, filter: JobFilter): Promise<JobSummary[] | JobDescription[]> {
  const jobs: JobSummary[] = [];
  for await (const summary of listSchedulesReadable(client)) {
    const job = jobFromSummary(summary);
    if (isSpentOneOff(job)) continue;
    if (job.foreign && filter.includeForeign === false) continue;
    if (filter.pipeline !== undefined && (job.foreign || job.pipeline !== filter.pipeline)) continue;
    if (filter.paused !== undefined && job.paused !== filter.paused) continue;
    jobs.push(job);
  }
  // Plain code-unit order: stable across locales, and far cheaper than localeCompare on 1,000s of ids.
  jobs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (!filter.details) return jobs;
  return describeAll(client, jobs);
}

async function describeAll(client: Client, jobs: JobSummary[]): Promise<JobDescription[]> {
  const out: JobDescription[] = new Array<JobDescription>(jobs.length);
  await inLanes(jobs, DESCRIBE_CONCURRENCY, async (job, i) => {
    // Deleted between the listing and the description: left out. A schedule this client cannot decode
    // (encrypted under a codec or key it lacks) stays as the listing read it: not one of ours. Any other
    // error (server gone, credentials) is the caller's, not a silently shorter list.
    try {
      const d = await describeJobIfAny(client, job.id);
      if (d) out[i] = jobFromDescription(d);
    } catch (err) {
      if (!(job.foreign && undecodable(err))) throw err;
      out[i] = job;
    }
  });
  return out.filter((j) => j !== undefined && !isSpentOneOff(j));
}

import { describeScheduleIfAny } from '../client/describe-schedule';
import { temporal } from '@temporalio/proto';
import { activityUsesOf, type PipelineSpec } from '../pipeline/spec';
import { rateLimitedTaskQueue } from '../workflows/run/rate-limit';
import type { PipelineRunInput } from '../workflows/run-types';
import { inLanes } from '../client/in-lanes';
import { livePollers, type DoctorContext } from './doctor-checks';
import type { DoctorCheck } from './doctor-types';

/*
 * The `step-queues` check of `tflow doctor`: every task queue other than a job's own that its steps need
 * (steps served by workers in another language, rate-limited steps' companion queues) must have a live
 * poller, or those runs wait at that step. The job's own queue is the `workers` check's.
 */

/** Jobs whose schedule the check reads at once (as the `jobs` check reads histories). */
const DESCRIBE_CONCURRENCY = 8;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;

/** The queues, other than `runQueue`, that a spec's activities are scheduled on, each with its activities. */
export function stepQueuesOf(spec: PipelineSpec, runQueue: string): Map<string, Set<string>> {
  const queues = new Map<string, Set<string>>();
  for (const use of activityUsesOf(spec)) {
    const base = use.taskQueue ?? runQueue;
    const queue = use.rateLimited ? rateLimitedTaskQueue(base, use.activity) : base;
    if (queue === runQueue) continue;
    if (!queues.has(queue)) queues.set(queue, new Set());
    queues.get(queue)!.add(use.activity);
  }
  return queues;
}

export async function checkStepQueues(ctx: DoctorContext): Promise<DoctorCheck> {
  const { connection, namespace } = ctx;
  try {
    const client = ctx.client();
    const { jobs } = await ctx.ourJobs();
    // queue -> job id -> the activities it needs there
    const needs = new Map<string, Map<string, Set<string>>>();
    const unreadable: string[] = [];
    await inLanes(jobs, DESCRIBE_CONCURRENCY, async ({ id: jobId }) => {
      let action;
      try {
        // Read again when it meets a schedule as it closes or a busy server's deadline (describe-schedule.ts).
        const d = await describeScheduleIfAny(client, jobId);
        if (!d) return; // deleted since the listing: nothing to serve
        ({ action } = d);
      } catch (err) {
        // One job encrypted with a key we lack, or unreadable for another reason, does not hide the others.
        unreadable.push(`${jobId} (${message(err)})`);
        return;
      }
      if (action.type !== 'startWorkflow') return;
      const spec = (action.args?.[0] as Partial<PipelineRunInput> | undefined)?.spec;
      if (!spec) return;
      for (const [queue, activities] of stepQueuesOf(spec, action.taskQueue)) {
        if (!needs.has(queue)) needs.set(queue, new Map());
        needs.get(queue)!.set(jobId, activities);
      }
    });
    const notRead =
      unreadable.length === 0
        ? ''
        : `; not read: ${unreadable.length} job${unreadable.length === 1 ? '' : 's'}: ${unreadable.sort().join('; ')}`;
    if (needs.size === 0) {
      return {
        id: 'step-queues',
        status: unreadable.length === 0 ? 'ok' : 'unknown',
        summary: `no job has steps on a task queue of their own${notRead}`,
      };
    }
    const queues = [...needs.keys()].sort();
    const polled = await Promise.all(
      queues.map((q) =>
        livePollers(connection, namespace, q, temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
      ),
    );
    const unpolled = queues.filter((_, i) => polled[i]!.length === 0);
    if (unpolled.length === 0) {
      return {
        id: 'step-queues',
        status: 'ok',
        summary: `every task queue the jobs' steps need has a worker: ${queues.map((q, i) => `"${q}" (${polled[i]!.join(', ')})`).join(', ')}${notRead}`,
      };
    }
    const what = unpolled.map((q) => {
      const byJob = [...needs.get(q)!].sort(([a], [b]) => a.localeCompare(b));
      return `task queue "${q}", needed by ${byJob.map(([job, acts]) => `job "${job}" (step${acts.size === 1 ? '' : 's'} ${[...acts].join(', ')})`).join(', ')}`;
    });
    return {
      id: 'step-queues',
      status: 'fail',
      summary: `no worker polls ${what.join('; ')} in the last 2 minutes: those runs wait at those steps${notRead}`,
      fix: `start the workers that serve those steps on ${unpolled.map((q) => `"${q}"`).join(', ')} (a Python worker: docs/python-steps.md; a rate-limited step's "--rate--" queue: createWorker({ pipelines }) or the other language's worker with its rate limit)`,
    };
  } catch (err) {
    return {
      id: 'step-queues',
      status: 'unknown',
      summary: `cannot read the jobs' step queues: ${message(err)}`,
    };
  }
}

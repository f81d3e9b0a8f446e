import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  DEFAULT_WATCHDOG_TASK_QUEUE,
  JOB_WATCHDOG_WORKFLOW_TYPE,
  watchdogStateQuery,
  watchdogWorkflowId,
} from '../../../workflows/alerts/watchdog-defs';
import { raiseOnce } from './evaluator-raise';
import type { WatchedJob } from './evaluator-state';
import type * as SendUpdate from '../../../client/jobs/store/send-update';
import type * as BuildUpdates from '../../../client/jobs/store/build-updates';

/**
 * The job writer, loaded when an upgrade first needs it, not when the alert worker starts: it brings the
 * trigger compiler, the holiday calendars and zod (about 17 MB of heap) into the process.
 */
export async function jobWriter(): Promise<
  Pick<typeof SendUpdate, 'updateJob'> & Pick<typeof BuildUpdates, 'alertQueueUpdate'>
> {
  const [{ updateJob }, { alertQueueUpdate }] = await Promise.all([
    import('../../../client/jobs/store/send-update.js'),
    import('../../../client/jobs/store/build-updates.js'),
  ]);
  return { updateJob, alertQueueUpdate };
}

/*
 * The upgrade from the per-job watchdogs (the release before): once the evaluator of their queue
 * evaluates a job, it takes over what the job's watchdog knew and ends it. A silent period the watchdog
 * had raised is recorded under its cause (a delivery workflow that sends nothing), so that neither this
 * evaluator nor a rebuilt one raises it again, and `recovered` still follows; its counters become the
 * baseline (when nothing was carried). A watchdog of a job that is gone or has no alert left is ended too.
 */

const WATCHDOG_ID_PREFIX = watchdogWorkflowId('');

/**
 * Retires the watchdogs (`watchdogs`: their workflow ids) running on `taskQueue`; `takeCounts`: their
 * counters become the jobs' baselines.
 */
export async function retireWatchdogs(
  client: Client,
  taskQueue: string,
  watchdogs: string[],
  jobs: Map<string, WatchedJob>,
  takeCounts: boolean,
  /** Jobs whose read failed: their watchdog keeps watching until the evaluator can read them. */
  unread: ReadonlyMap<string, unknown>,
  onFailure: (jobId: string, err: unknown) => void,
): Promise<number> {
  let retired = 0;
  for (const workflowId of watchdogs) {
    const jobId = workflowId.slice(WATCHDOG_ID_PREFIX.length);
    const job = jobs.get(jobId);
    if (!job && unread.has(jobId)) continue;
    const handle = client.workflow.getHandle(workflowId);
    try {
      if (job) {
        const state = await handle.query(watchdogStateQuery);
        if (state.silent && job.config.onSilent) {
          const since = state.lastSuccessAt;
          await raiseOnce(
            client,
            taskQueue,
            { kind: 'silent', jobId, lastSuccessAt: since },
            job.config.onSilent,
            {
              kind: 'silent',
              jobId,
              text: `job "${jobId}" was silent since ${since} (raised by its watchdog before the upgrade)`,
              at: new Date().toISOString(),
              lastSuccessAt: since,
            },
            true,
          );
          job.silentSince = since;
        }
        if (state.lastSuccessAt && (!job.lastSuccessAt || state.lastSuccessAt > job.lastSuccessAt)) {
          // The watchdog's clock (its last success, or its start) is what the job was watched against.
          job.lastSuccessAt = state.lastSuccessAt;
        }
        if (takeCounts && state.counts && job.config.onMissed) job.counts = state.counts;
        // Its record names no queue: it stays this evaluator's once its watchdog is gone.
        if (job.alertQueue === undefined && taskQueue !== DEFAULT_WATCHDOG_TASK_QUEUE) {
          const { updateJob, alertQueueUpdate } = await jobWriter();
          await updateJob(client, jobId, (d) => alertQueueUpdate(d, taskQueue));
          job.alertQueue = taskQueue;
        }
      }
      await handle.terminate(
        `retired: the alert evaluator of task queue ${taskQueue} serves job "${jobId}" now`,
      );
      retired++;
      Context.current().log.info('retired the watchdog of a job', {
        jobId,
        workflowType: JOB_WATCHDOG_WORKFLOW_TYPE,
      });
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) continue;
      onFailure(jobId, err);
    }
  }
  return retired;
}

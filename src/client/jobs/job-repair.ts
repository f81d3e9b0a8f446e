import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { DEFAULT_WATCHDOG_TASK_QUEUE } from '../../workflows/alerts/watchdog-defs';
import { alertEvaluatorWorkflowId } from '../../workflows/alerts/evaluator-defs';
import { describeJobIfAny } from './store/describe-job';
import { inLanes } from '../in-lanes';
import { ourJobMemo } from './store/schedule-memo';
import { compileAlerts } from './store/job-alerts';
import { decodeJobRecord } from './store/job-record';
import { dueBackfill, dueMarkOf } from './store/build-updates';
import { listSchedulesReadable } from '../schedule-listing';
import { undecodable } from './job-alert-health';
import { ensureAlertEvaluator, lastAlertEvaluatorSettings } from './alert-evaluator';

/*
 * What a job needs beyond its schedule and nobody else provides. A job is one Temporal entity, its
 * schedule; two things can still be owed to it: the backfill of a one-off rewritten to run at once (its
 * writer died between its two calls), and, for a job whose alerts need evaluating (expectSuccessWithin,
 * onMissed), a running evaluator of its alert queue (every alert worker starts it, and every scheduler
 * before its first such write; it is missing only when none of them ran since it was terminated). This finds
 * both, and repairs them with the same idempotent calls. Run by `tflow doctor` (report) and
 * `tflow doctor --repair`. Nothing here runs periodically.
 */

/** What a job is owed. */
export type JobDisagreementKind = 'evaluator-missing' | 'due-run-missing';

/** One thing owed: to a job, or (evaluator-missing) to the jobs of an alert queue. */
export interface JobDisagreement {
  /** The job; for `evaluator-missing`, the evaluator's workflow id. */
  jobId: string;
  kind: JobDisagreementKind;
  /** What is wrong, in plain words. */
  summary: string;
  /** For `due-run-missing`: the second the owed run stands for. */
  dueAt?: Date;
  /** For `evaluator-missing`: the alert task queue. */
  taskQueue?: string;
}

export interface JobRepairOptions {
  /**
   * A job written this recently may still be between its two writes (its writer is about to make the
   * second): it is not judged yet. @default 10_000 (ms)
   */
  settleMs?: number;
}

/** Schedules described at once: a server is not a benchmark target. */
const DESCRIBE_CONCURRENCY = 8;
const DEFAULT_SETTLE_MS = 10_000;

async function evaluatorRunning(client: Client, taskQueue: string): Promise<boolean> {
  try {
    const d = await client.workflow.getHandle(alertEvaluatorWorkflowId(taskQueue)).describe();
    return d.status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/**
 * The job's schedule, undefined when it is gone, or 'unreadable' when it is encrypted under a codec this
 * client lacks: such a job cannot be judged here, and is left alone rather than failing
 * the check for every other job or being taken for an orphan.
 */
async function describeJudgeable(client: Client, jobId: string) {
  try {
    return await describeJobIfAny(client, jobId);
  } catch (err) {
    if (undecodable(err)) return 'unreadable' as const;
    throw err;
  }
}

/**
 * What the jobs of the client's namespace are owed: an alert queue in use with no evaluator running, and a
 * one-off that owes its run at once (its due mark, see build-updates.ts) with no such run. Listings are
 * only a first pass: every finding is confirmed by a describe (strongly consistent), sorted by id.
 */
export async function findJobDisagreements(
  client: Client,
  opts: JobRepairOptions = {},
): Promise<JobDisagreement[]> {
  const settleMs = opts.settleMs ?? DEFAULT_SETTLE_MS;
  const now = Date.now();
  const jobIds: string[] = [];
  for await (const s of listSchedulesReadable(client)) {
    if (ourJobMemo(s.memo, s.action?.workflowType)) jobIds.push(s.scheduleId);
  }
  const found: JobDisagreement[] = [];
  /** Jobs whose alerts need evaluating, by alert queue. */
  const queues = new Map<string, number>();
  await inLanes(jobIds, DESCRIBE_CONCURRENCY, async (jobId) => {
    const d = await describeJudgeable(client, jobId);
    if (!d || d === 'unreadable') return;
    const record = decodeJobRecord(undefined, d.action.memo);
    if (record?.alerts && compileAlerts(record.alerts).watchdog) {
      const queue = record.alertQueue ?? DEFAULT_WATCHDOG_TASK_QUEUE;
      queues.set(queue, (queues.get(queue) ?? 0) + 1);
    }
    const settled = now - (d.info.lastUpdatedAt ?? d.info.createdAt).getTime() >= settleMs;
    const dueAt = dueMarkOf(d);
    const ran = dueAt && d.info.recentActions.some((a) => a.scheduledAt.getTime() === dueAt.getTime());
    if (dueAt && settled && !ran && d.info.runningActions.length === 0) {
      found.push({
        jobId,
        kind: 'due-run-missing',
        dueAt,
        summary: `one-off job "${jobId}" was rewritten to run at once (${dueAt.toISOString()}) and its run was never started: it has no scheduled run left`,
      });
    }
  });
  for (const [taskQueue, jobs] of queues) {
    if (await evaluatorRunning(client, taskQueue)) continue;
    found.push({
      jobId: alertEvaluatorWorkflowId(taskQueue),
      kind: 'evaluator-missing',
      taskQueue,
      summary: `no alert evaluator runs for task queue "${taskQueue}", which ${jobs} job${jobs === 1 ? '' : 's'} with expectSuccessWithin or onMissed use: their silent and missed alerts are not raised (start an alert worker on that queue, or repair)`,
    });
  }
  return found.sort((a, b) => (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : a.kind < b.kind ? -1 : 1));
}

/**
 * Repairs one finding of {@link findJobDisagreements} with the calls the writers make (each idempotent):
 * starts the queue's alert evaluator (with the settings of its last run), or sends the owed one-off's backfill, with the job's overlap policy
 * (its run then judges its own lateness against misfireGraceTime, as any late run does).
 */
export async function repairJobDisagreement(
  client: Client,
  finding: JobDisagreement,
  _opts: JobRepairOptions = {},
): Promise<void> {
  const { jobId } = finding;
  if (finding.kind === 'evaluator-missing') {
    const taskQueue = finding.taskQueue ?? DEFAULT_WATCHDOG_TASK_QUEUE;
    await ensureAlertEvaluator(client, taskQueue, await lastAlertEvaluatorSettings(client, taskQueue));
  } else {
    // Read again: the run may have started since the finding.
    const d = await describeJobIfAny(client, jobId);
    const at = d && dueMarkOf(d);
    if (!d || !at || d.info.runningActions.length > 0) return;
    if (d.info.recentActions.some((a) => a.scheduledAt.getTime() === at.getTime())) return;
    await client.schedule.getHandle(jobId).backfill(dueBackfill({ at, lateMs: 0 }, d.policies.overlap));
  }
}

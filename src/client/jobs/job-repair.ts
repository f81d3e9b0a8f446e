import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  DEFAULT_WATCHDOG_TASK_QUEUE,
  JOB_WATCHDOG_WORKFLOW_TYPE,
  watchdogWorkflowId,
} from '../../workflows/alerts/watchdog-defs';
import { describeJobIfAny } from './store/describe-job';
import { inLanes } from '../in-lanes';
import { ourJobMemo } from './store/schedule-memo';
import { needsWatchdog, reconfigureWatchdog } from './job-watchdog';
import { dueBackfill, dueMarkOf } from './store/build-updates';
import { listSchedulesReadable, readingClient } from '../schedule-listing';
import { undecodable } from './job-alert-health';

/*
 * The reconciler of a job's two parts. A job is its schedule (whose record is the source of truth) and,
 * when its alerts need one, a watchdog workflow; writers change the schedule first and the watchdog
 * second, and a writer that dies (or whose server goes away) between the two leaves them disagreeing.
 * Most disagreements heal by themselves: a watchdog reads the schedule before each alert, so a removal
 * or an edit it missed ends it quietly or is adopted. What cannot heal alone is what nobody is left to
 * do: a watchdog never started, and the backfill of a one-off rewritten to run at once. This finds those
 * (and watchdogs still waiting for a wake-up to notice their job is gone), and repairs them with the same
 * idempotent calls the writers make. Run by `tflow doctor` (report) and `tflow doctor --repair`; each job's
 * next write through the scheduler repairs its own watchdog too. Nothing here runs periodically.
 */

/** What disagrees between a job's parts. */
export type JobDisagreementKind = 'watchdog-missing' | 'watchdog-orphaned' | 'due-run-missing';

/** One job whose parts disagree. */
export interface JobDisagreement {
  jobId: string;
  kind: JobDisagreementKind;
  /** What is wrong, in plain words. */
  summary: string;
  /** For `due-run-missing`: the second the owed run stands for. */
  dueAt?: Date;
}

export interface JobRepairOptions {
  /** Task queue of the watchdogs a repair starts (the schedulers' `watchdogTaskQueue`). @default 'tflow-watchdog' */
  watchdogTaskQueue?: string;
  /**
   * A job written this recently may still be between its two writes (its writer is about to make the
   * second): it is not judged yet. @default 10_000 (ms)
   */
  settleMs?: number;
}

/** Schedules described at once: a server is not a benchmark target. */
const DESCRIBE_CONCURRENCY = 8;
const DEFAULT_SETTLE_MS = 10_000;

async function watchdogRunning(client: Client, jobId: string): Promise<boolean> {
  try {
    return (await client.workflow.getHandle(watchdogWorkflowId(jobId)).describe()).status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/**
 * The jobs of the client's namespace whose parts disagree: a job that needs a watchdog and has none
 * running, a running watchdog whose job is gone or needs none, and a one-off that owes its run at once
 * (its due mark, see build-updates.ts) with no such run. Listings are only a first pass: every finding is
 * confirmed by a describe (strongly consistent) before it is reported, and sorted by job id.
 */
/**
 * The job's schedule, undefined when it is gone, or 'unreadable' when it is encrypted under a codec this
 * client lacks: such a job (and its watchdog) cannot be judged here, and is left alone rather than failing
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
  const watched = new Set<string>();
  const query = `WorkflowType = '${JOB_WATCHDOG_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'`;
  for await (const wf of readingClient(client).workflow.list({ query })) watched.add(wf.workflowId);

  const found: JobDisagreement[] = [];
  const needing = new Set<string>();
  await inLanes(jobIds, DESCRIBE_CONCURRENCY, async (jobId) => {
    const d = await describeJudgeable(client, jobId);
    if (!d || d === 'unreadable') return;
    const settled = now - (d.info.lastUpdatedAt ?? d.info.createdAt).getTime() >= settleMs;
    if (needsWatchdog(d)) {
      needing.add(jobId);
      if (settled && !watched.has(watchdogWorkflowId(jobId)) && !(await watchdogRunning(client, jobId))) {
        found.push({
          jobId,
          kind: 'watchdog-missing',
          summary: `job "${jobId}" has alerts that need a watchdog (expectSuccessWithin or onMissed) and no watchdog runs: nothing raises its silent or missed alerts`,
        });
      }
    }
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
  const orphans = [...watched]
    .map((id) => id.slice(watchdogWorkflowId('').length))
    .filter((jobId) => !needing.has(jobId));
  await inLanes(orphans, DESCRIBE_CONCURRENCY, async (jobId) => {
    // The listings are a moment old: the job may have been created since, or the watchdog ended.
    const d = await describeJudgeable(client, jobId);
    if (d === 'unreadable' || needsWatchdog(d) || !(await watchdogRunning(client, jobId))) return;
    found.push({
      jobId,
      kind: 'watchdog-orphaned',
      summary: d
        ? `the watchdog of job "${jobId}" runs, but the job has no alert that needs one (it would end quietly at its next wake-up)`
        : `the watchdog of job "${jobId}" runs, but the job is gone (it would end quietly at its next wake-up)`,
    });
  });
  return found.sort((a, b) => (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : a.kind < b.kind ? -1 : 1));
}

/**
 * Repairs one finding of {@link findJobDisagreements} with the calls the writer would have made (each
 * idempotent): starts the missing watchdog (signal-with-start, one per job id), tells an orphaned one to
 * read its job again (it ends), or sends the owed one-off's backfill, with the job's overlap policy (its
 * run then judges its own lateness against misfireGraceTime, as any late run does).
 */
export async function repairJobDisagreement(
  client: Client,
  finding: JobDisagreement,
  opts: JobRepairOptions = {},
): Promise<void> {
  const { jobId } = finding;
  if (finding.kind === 'watchdog-missing') {
    const taskQueue = opts.watchdogTaskQueue ?? DEFAULT_WATCHDOG_TASK_QUEUE;
    await reconfigureWatchdog(client, jobId, { taskQueue });
  } else if (finding.kind === 'watchdog-orphaned') {
    await reconfigureWatchdog(client, jobId, undefined);
  } else {
    // Read again: the run may have started since the finding.
    const d = await describeJobIfAny(client, jobId);
    const at = d && dueMarkOf(d);
    if (!d || !at || d.info.runningActions.length > 0) return;
    if (d.info.recentActions.some((a) => a.scheduledAt.getTime() === at.getTime())) return;
    await client.schedule.getHandle(jobId).backfill(dueBackfill({ at, lateMs: 0 }, d.policies.overlap));
  }
}

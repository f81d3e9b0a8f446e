import { getExternalWorkflowHandle, log, patched, workflowInfo } from '@temporalio/workflow';
import type { JobAlertEvent } from '../alert-types';
import { runSucceededSignal, watchdogWorkflowId } from './watchdog-defs';
import { raiseAlert } from './raise-alert';
import type { SkipReason } from '../outcomes';
import type { RunJobContext } from '../run-types';
import { SCHEDULED_START_TIME_ATTRIBUTE } from '../search-attributes';

/*
 * The alerts a scheduled run raises itself (onMissed when it skips itself, onLate when its first step
 * starts late) and its report to the job's watchdog when it completes. Only runs whose job has alerts
 * (`job.alerts`, an option older runs never had) issue any of these commands.
 */

/** The run's nominal time (Temporal's `TemporalScheduledStartTime`), or undefined outside a schedule. */
function nominalTime(): Date | undefined {
  return workflowInfo().typedSearchAttributes.get(SCHEDULED_START_TIME_ATTRIBUTE);
}

function runEvent(job: RunJobContext): Pick<JobAlertEvent, 'jobId' | 'at' | 'workflowId' | 'runId'> {
  const info = workflowInfo();
  return {
    jobId: job.jobId,
    at: new Date(Date.now()).toISOString(),
    workflowId: info.workflowId,
    runId: info.runId,
  };
}

/**
 * onMissed for a run that skipped itself: the occurrence it stood for (the latest missed one for a
 * coalescing job, else its own nominal time).
 */
export async function alertSkipped(
  job: RunJobContext,
  reason: SkipReason,
  standsFor: string | undefined,
): Promise<void> {
  const target = job.alerts?.onMissed;
  // A DST skip is the job's own policy at work, not a missed run.
  if (!target || reason === 'dst') return;
  const nominal = standsFor ?? nominalTime()?.toISOString();
  const why = reason === 'misfire' ? 'started past its misfire grace' : 'maxInstances runs were running';
  await raiseAlert(target, {
    kind: 'missed',
    ...runEvent(job),
    text: `job "${job.jobId}" missed its run of ${nominal ?? 'an unknown time'}: ${why}`,
    reason,
    ...(nominal ? { nominalTimes: [nominal] } : {}),
  });
}

/**
 * onLate, read just before the first step is scheduled: undefined when the run is on time (or the job has
 * no onLate), else the delivery under way (the run awaits it when it ends, so the steps are not held up).
 */
export function alertIfLate(job: RunJobContext, standsFor: string | undefined): Promise<void> | undefined {
  const alerts = job.alerts;
  if (!alerts?.onLate || alerts.lateAfterMs === undefined) return undefined;
  const nominal = standsFor ? new Date(standsFor) : nominalTime();
  if (!nominal) return undefined;
  const lateMs = Date.now() - nominal.getTime();
  if (lateMs <= alerts.lateAfterMs) return undefined;
  return raiseAlert(alerts.onLate, {
    kind: 'late',
    ...runEvent(job),
    text: `job "${job.jobId}": the run of ${nominal.toISOString()} started its first step ${lateMs} ms late (lateAfter ${alerts.lateAfterMs} ms)`,
    nominalTimes: [nominal.toISOString()],
    lateMs,
  });
}

/**
 * Patch id: a run that completes no longer signals the job's watchdog. The shared alert evaluator learns
 * of completed runs from visibility; the per-job watchdogs (the release before) it retires read visibility
 * before they raise `silent` too. Histories recorded before it send the signal.
 */
export const RUNS_TELL_NO_WATCHDOG_PATCH = 'tflow-runs-tell-no-watchdog';

/** Tells the job's watchdog that this run completed (runs recorded before RUNS_TELL_NO_WATCHDOG_PATCH). */
export async function reportSuccess(job: RunJobContext): Promise<void> {
  if (!job.alerts?.watchdog) return;
  if (patched(RUNS_TELL_NO_WATCHDOG_PATCH)) return;
  const info = workflowInfo();
  try {
    await getExternalWorkflowHandle(watchdogWorkflowId(job.jobId)).signal(runSucceededSignal, {
      workflowId: info.workflowId,
      runId: info.runId,
      at: new Date(Date.now()).toISOString(),
    });
  } catch (err) {
    log.warn('could not tell the job watchdog', { jobId: job.jobId, error: String(err) });
  }
}

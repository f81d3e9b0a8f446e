import type {
  ScheduleDescription,
  ScheduleExecutionResult,
  ScheduleSpecDescription,
  ScheduleSummary,
} from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import type { DstWarning } from '../../schedule/dst';
import { InvalidTriggerError } from '../../schedule/errors';
import { previewTrigger } from '../../schedule/preview';
import type { PipelineRunInput } from '../../workflows/run-types';
import { calendarFromDescription, calendarToCron } from '../../schedule/spec-calendar';
import { rangeValues } from '../../schedule/field-parse';
import { ourJobMemo } from './store/schedule-memo';
import type { JobRecord } from './store/job-record';
import { readJobState } from './store/job-state';
import type { JobDescription, JobSummary, RecentRun } from './job-types';

/*
 * Turns what Temporal says about a schedule (a listing entry or a full description) into a job. Pure:
 * no calls to Temporal here, so the scheduler decides how many calls a verb costs.
 */

interface ScheduleView {
  id: string;
  memo: Record<string, unknown> | undefined;
  attrs: TypedSearchAttributes | undefined;
  actionMemo?: Record<string, unknown> | undefined;
  spec: ScheduleSpecDescription | undefined;
  workflowType: string | undefined;
  paused: boolean;
  note: string | undefined;
  recentActions: ScheduleExecutionResult[];
  nextActionTimes: Date[];
}

function recentRuns(actions: ScheduleExecutionResult[]): RecentRun[] {
  return actions
    .map((a) => ({
      scheduledAt: a.scheduledAt,
      startedAt: a.takenAt,
      workflowId: a.action.workflow.workflowId,
      runId: a.action.workflow.firstExecutionRunId,
    }))
    .reverse();
}

/** The job a view shows, and the record it was read from (undefined for a foreign schedule). */
function toJob(view: ScheduleView): { job: JobSummary; record?: JobRecord } {
  const base = {
    id: view.id,
    paused: view.paused,
    ...(view.note ? { note: view.note } : {}),
    nextRunTimes: view.nextActionTimes,
    recentRuns: recentRuns(view.recentActions),
  };
  const memo = ourJobMemo(view.memo, view.workflowType);
  if (!memo) {
    return {
      job: { foreign: true, ...base, ...(view.workflowType ? { workflowType: view.workflowType } : {}) },
    };
  }
  const { record, compiled, editedOutside, givenTrigger } = readJobState(
    view.attrs,
    view.actionMemo,
    view.spec,
  );
  const job: JobSummary = {
    foreign: false,
    ...base,
    pipeline: memo.pipeline,
    trigger: record.trigger,
    timezone: record.timezone,
    policies: record.policies,
    ...(record.onError ? { onError: record.onError } : {}),
    ...(record.runMetadata === false ? { runMetadata: false as const } : {}),
    editedOutside,
    ...(givenTrigger ? { givenTrigger } : {}),
    ...exclusionsOf(
      view.spec,
      compiled?.exclusions?.skip.map((e) => e.label),
    ),
  };
  return { job, record };
}

/**
 * What the schedule's `skip` holds: the exclusions by what they stand for (as compiled from the trigger,
 * else as cron strings when the spec was edited outside), and the last year its dated ones reach.
 */
function exclusionsOf(spec: ScheduleView['spec'], labels: string[] | undefined) {
  const skip = (spec?.skip ?? []).map(calendarFromDescription);
  if (skip.length === 0) return {};
  const years = skip.flatMap((c) =>
    c.year.length === 1 && c.year[0]!.start === c.year[0]!.end ? rangeValues(c.year) : [],
  );
  return {
    exclusions: [...new Set(labels ?? skip.map(calendarToCron))],
    ...(years.length > 0 ? { exclusionsHeldUntil: Math.max(...years) } : {}),
  };
}

/** A job from a listing entry (no args, no counters: listings do not carry them). */
export function jobFromSummary(s: ScheduleSummary): JobSummary {
  const { job } = toJob({
    id: s.scheduleId,
    memo: s.memo,
    attrs: s.typedSearchAttributes,
    spec: s.spec,
    workflowType: s.action?.workflowType,
    paused: s.state.paused,
    note: s.state.note,
    recentActions: s.info.recentActions,
    nextActionTimes: s.info.nextActionTimes,
  });
  return job;
}

/** A job from a full description, with args, counters and remaining actions. */
export function jobFromDescription(d: ScheduleDescription): JobDescription {
  const { job, record } = toJob({
    id: d.scheduleId,
    memo: d.memo,
    attrs: d.typedSearchAttributes,
    actionMemo: d.action.memo,
    spec: d.spec,
    workflowType: d.action.workflowType,
    paused: d.state.paused,
    note: d.state.note,
    recentActions: d.info.recentActions,
    nextActionTimes: d.info.nextActionTimes,
  });
  if (job.foreign) return job;
  const input = d.action.args?.[0] as PipelineRunInput | undefined;
  return {
    ...job,
    args: input?.args ?? [],
    ...(record?.alerts ? { alerts: record.alerts } : {}),
    ...(record?.alertsLost ? { alertsLost: record.alertsLost } : {}),
    workflowId: d.action.workflowId,
    counters: {
      actionsTaken: d.info.numActionsTaken,
      skippedOverlap: d.info.numActionsSkippedOverlap,
      missedCatchupWindow: d.info.numActionsMissedCatchupWindow,
      running: d.info.runningActions.length,
    },
    ...(d.state.remainingActions !== undefined ? { remainingActions: d.state.remainingActions } : {}),
    createdAt: d.info.createdAt,
    ...(d.info.lastUpdatedAt ? { updatedAt: d.info.lastUpdatedAt } : {}),
  };
}

/**
 * A one-off job that has used its single run: gone for the user, even before its clean-up deletes it. Its
 * own run stands for its runAt's second (scheduled, or backfilled when it was due); the runs of what the
 * job was before a replaceExisting stand for earlier times and do not count, so a one-off whose run is
 * still owed stays listed.
 */
export function isSpentOneOff(job: JobSummary): boolean {
  if (job.foreign || !('runAt' in job.trigger) || job.nextRunTimes.length > 0) return false;
  const second = Math.floor(new Date(job.trigger.runAt).getTime() / 1000) * 1000;
  return job.recentRuns.some((r) => r.scheduledAt.getTime() >= second);
}

/**
 * What DST does to a job in the coming 12 months, computed locally as `preview` does, in the job's own
 * time zone. Empty for a foreign schedule, and for a trigger preview cannot read (a spec edited outside temporal-flow into a shape it
 * does not know). Not part of getJob(), which stays one describe call: this costs milliseconds of CPU.
 */
export function jobDstWarnings(job: JobSummary, from?: Date): DstWarning[] {
  if (job.foreign) return [];
  try {
    return previewTrigger(job.trigger, 1, { defaultTimezone: job.timezone, ...(from ? { from } : {}) })
      .dstWarnings;
  } catch (err) {
    if (err instanceof InvalidTriggerError) return [];
    throw err;
  }
}

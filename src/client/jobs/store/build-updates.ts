import type { PrioritySpec } from '../../../pipeline/priority';
import type { Backfill, ScheduleDescription, ScheduleOptions } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { PipelineSpec } from '../../../pipeline/spec';
import { compileTrigger, type CompiledTrigger } from '../../../schedule/compile-trigger';
import { InvalidTriggerError } from '../../../schedule/errors';
import { dueOneOffWithGrace, type DueOneOff } from '../../../schedule/one-off-due';
import { compilePolicies, type CompiledPolicies } from '../../../schedule/policies';
import type { Trigger } from '../../../schedule/trigger-types';
import {
  PIPELINE_WORKFLOW_TYPE,
  type PipelineRunInput,
  type RunConcurrency,
} from '../../../workflows/run-types';
import { JOB_SEARCH_ATTRIBUTE } from '../../../workflows/search-attributes';
import { ForeignScheduleError, JobInputMissingError, JobNotFoundError } from '../../errors';
import { SCHEDULE_MEMO_KEY, ourJobMemo, type JobMemo } from './schedule-memo';
import { compileAlerts, type CompiledAlerts, type JobAlerts } from './job-alerts';
import {
  asGiven,
  runJobContext,
  schedulePolicies,
  scheduleSpec,
  type AlertChanges,
  type JobChanges,
} from './job-options';
import {
  JOB_RECORD_MEMO_KEY,
  decodeJobRecord,
  encodeListedRecord,
  type CompiledJob,
  type JobRecord,
} from './job-record';
import { readJobState, type JobState } from './job-state';
import { runStartOptions } from '../../runs/run-start';
import type { ScheduleWrite } from './send-update';
import { runMetadata } from '../../runs/run-metadata';

/*
 * Builders of what the scheduler sends to Temporal: the options of a new schedule, and the update of an
 * existing one for rescheduleJob (when) and modifyJob (what). No calls to Temporal here (rescheduleJob's
 * reads the clock, to tell a due one-off). Each update reads the job once from the description it starts
 * from (job-state.ts) and compiles only what changes. Every write keeps the job record in both of its
 * places (action memo and TflowJob search attribute, see job-record.ts), and gives back what it wrote
 * (JobWrite): the caller decides about the watchdog and a due one-off from that, never from a describe.
 */

/** An update of one of our jobs, with what it writes. */
export interface JobWrite extends ScheduleWrite {
  /** The job record the update writes (undefined: a schedule that has none, left without). */
  readonly record: JobRecord | undefined;
  /** The record's alerts compiled: what the runs carry, and whether the job needs a watchdog. */
  readonly alerts: CompiledAlerts;
  /** The backfill that runs a one-off due now, to send once the update landed (an update cannot carry one). */
  readonly dueRun?: Backfill;
}

/** Everything a new job is made of, validated and compiled. */
export interface NewJob {
  /** The record's alerts compiled (checked against the worker's steps). */
  alerts: CompiledAlerts;
  jobId: string;
  /** Prefix of the runs' workflow ids (Temporal appends each run's nominal time). */
  workflowId: string;
  taskQueue: string;
  pipeline: PipelineSpec;
  args: unknown[];
  /** The runs' concurrency key, computed from `args` when the job is created. */
  concurrency?: RunConcurrency | undefined;
  /** The record stored with the job, and what it compiles to. */
  job: CompiledJob;
  paused: boolean;
  note: string | undefined;
  /** Set for a one-off whose runAt is due now (see dueOneOff): it runs at once, by backfill. */
  due?: DueOneOff | undefined;
  /** The runs' own priority and fairness, over the pipeline's. */
  priority?: PrioritySpec | undefined;
}

/**
 * The state of a one-off due now: no scheduled action left (the spec's second is past, or too near to be
 * taken), so that the backfilled run is the job's one run and its clean-up deletes the job.
 */
function dueState(due: DueOneOff | undefined, paused: boolean, runAt: Date | undefined) {
  if (!due) return {};
  if (paused) {
    throw new InvalidTriggerError(
      'paused',
      `runAt ${runAt?.toISOString()} is due now, but the job is paused: a paused one-off that is due would never run; give a runAt in the future, or leave the job unpaused`,
    );
  }
  return { remainingActions: 0 };
}

/** The backfill that runs a due one-off at once, with its nominal time (so the misfire guard measures from it). */
export function dueBackfill(due: DueOneOff, overlap: CompiledPolicies['overlap']): Backfill {
  return { start: new Date(due.at.getTime() - 1_000), end: due.at, overlap };
}

/** The options of a new job's schedule. */
export function createOptions(n: NewJob) {
  const { record, trigger, policies } = n.job;
  const encoded = encodeListedRecord(record);
  const once = trigger.remainingActions !== undefined;
  const { spec, dstSkips, horizonEnd } = scheduleSpec(trigger, policies);
  return {
    scheduleId: n.jobId,
    spec,
    action: {
      type: 'startWorkflow' as const,
      workflowType: PIPELINE_WORKFLOW_TYPE,
      workflowId: n.workflowId,
      taskQueue: n.taskQueue,
      memo: { [JOB_RECORD_MEMO_KEY]: record },
      ...runStartOptions(n.pipeline, n.args, {
        job: runJobContext(n.jobId, policies, once, record.onError, {
          alerts: n.alerts.run,
          dstSkips,
          horizonEnd,
        }),
        ...(n.concurrency ? { concurrency: n.concurrency } : {}),
        ...(n.priority ? { priority: n.priority } : {}),
        ...(record.runMetadata === false ? { metadata: false } : {}),
      }),
    },
    policies: schedulePolicies(policies),
    state: {
      paused: n.paused,
      ...(n.note !== undefined ? { note: n.note } : {}),
      ...(once ? { remainingActions: trigger.remainingActions } : {}),
      ...dueState(n.due, n.paused, trigger.runAt),
      ...(n.due ? { backfill: [dueBackfill(n.due, policies.overlap)] } : {}),
    },
    memo: { [SCHEDULE_MEMO_KEY]: { v: 1, pipeline: n.pipeline.name } satisfies JobMemo },
    ...(encoded ? { typedSearchAttributes: [{ key: JOB_SEARCH_ATTRIBUTE, value: encoded }] } : {}),
  } satisfies ScheduleOptions;
}

/** Key of the action memo's mark on a one-off that has run and is about to be deleted. Persisted. */
export const FINISHED_MEMO_KEY = 'tflowFinished';

/**
 * Key of the action memo's mark on a one-off rewritten to run at once (ISO 8601 second of its run).
 * Persisted. An update cannot carry a backfill, so the rewrite takes two calls: the update (no scheduled
 * action left) then the backfill. The mark, written by the first, says a run is owed: if the second never
 * lands, `tflow doctor` reports the job and `--repair` sends the backfill (client/jobs/job-repair.ts), and
 * listings keep showing the job until its run exists.
 */
export const DUE_MEMO_KEY = 'tflowDue';

/** The action memo with the due mark set for `due`, or removed. */
function withDueMark(memo: Record<string, unknown> | undefined, due: DueOneOff | undefined) {
  const { [DUE_MEMO_KEY]: _old, ...rest } = memo ?? {};
  return due ? { ...rest, [DUE_MEMO_KEY]: due.at.toISOString() } : rest;
}

/** The second a one-off's owed run stands for, from its due mark; undefined when no run is owed. */
export function dueMarkOf(d: ScheduleDescription): Date | undefined {
  const mark = d.action.memo?.[DUE_MEMO_KEY];
  if (typeof mark !== 'string' || d.state.remainingActions !== 0) return undefined;
  const at = new Date(mark);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/**
 * The clean-up of a spent one-off, written (with the conflict token) before the delete, which has none:
 * an edit computed before this mark is dropped and re-read, and every edit that reads it is refused, so the
 * delete never takes an edit with it.
 */
export function finishedUpdate(d: ScheduleDescription): ScheduleWrite {
  return {
    update: {
      ...d,
      action: { ...d.action, memo: { ...d.action.memo, [FINISHED_MEMO_KEY]: true } },
      searchAttributes: undefined,
      state: { ...d.state, paused: true, note: 'one-off job done: being removed' },
    },
  };
}

/**
 * The job with its record naming `alertQueue` (the alert evaluator that took a job of the release before
 * over from its watchdog on that queue writes it, so that the job stays that evaluator's).
 */
export function alertQueueUpdate(d: ScheduleDescription, alertQueue: string): ScheduleWrite {
  const record = decodeJobRecord(undefined, d.action.memo);
  return {
    update: {
      ...d,
      action: {
        ...d.action,
        memo: { ...d.action.memo, ...(record ? { [JOB_RECORD_MEMO_KEY]: { ...record, alertQueue } } : {}) },
      },
      searchAttributes: undefined,
    },
  };
}

/** One of our jobs as an update finds it: its state and the input of its runs. */
interface CurrentJob extends JobState {
  readonly input: PipelineRunInput;
}

/**
 * Refuses to edit a schedule temporal-flow did not create (ForeignScheduleError) or a spent one-off being
 * removed (JobNotFoundError).
 */
function checkOurs(jobId: string, d: ScheduleDescription): void {
  if (!ourJobMemo(d.memo, d.action.workflowType)) throw new ForeignScheduleError(jobId);
  // A one-off that has run and is being deleted: an edit now would be deleted with it.
  if (d.action.memo?.[FINISHED_MEMO_KEY] === true) throw new JobNotFoundError(jobId);
}

/**
 * Reads one of our jobs from the description an update starts from (see readJobState: the record is
 * decoded once, its trigger compiled once).
 *
 * @throws ForeignScheduleError for a schedule temporal-flow did not create.
 * @throws JobNotFoundError for a spent one-off being removed.
 * @throws JobInputMissingError when an outside edit left the runs without their input.
 */
function currentJob(jobId: string, d: ScheduleDescription): CurrentJob {
  checkOurs(jobId, d);
  const input = d.action.args?.[0] as PipelineRunInput | undefined;
  if (typeof input?.spec !== 'object' || input.spec === null) throw new JobInputMissingError(jobId);
  return { ...readJobState(d.typedSearchAttributes, d.action.memo, d.spec), input };
}

/** The schedule's search attributes with the job record's listed fields replaced (see job-record.ts). */
function withRecord(d: ScheduleDescription, record: JobRecord): TypedSearchAttributes {
  const encoded = encodeListedRecord(record);
  const others = d.typedSearchAttributes.getAll().filter((p) => p.key.name !== JOB_SEARCH_ATTRIBUTE.name);
  return new TypedSearchAttributes(
    encoded ? [...others, { key: JOB_SEARCH_ATTRIBUTE, value: encoded }] : others,
  );
}

/** The common part of an update: the action with new input, the record in both places. */
function updated(d: ScheduleDescription, input: PipelineRunInput, record: JobRecord) {
  return {
    ...d,
    action: {
      ...d.action,
      args: [input],
      // Written again from the new input; none when the job's runs carry none (the description's dropped).
      ...(record.runMetadata === false
        ? { staticSummary: undefined, staticDetails: undefined }
        : runMetadata(input)),
      memo: { ...d.action.memo, [JOB_RECORD_MEMO_KEY]: record },
    },
    // The deprecated untyped copy would win over the typed one: drop it.
    searchAttributes: undefined,
    typedSearchAttributes: withRecord(d, record),
  };
}

/**
 * rescheduleJob: the job with its new trigger, given (JSON-safe) and compiled (and one remaining action
 * for a one-off, none for the others; none either for a one-off due now, which the caller backfills once
 * this update landed). Whether a one-off is due follows the job's misfireGraceTime, else
 * `schedulerGraceMs`; too late throws RunAtInPastError.
 */
export function rescheduleUpdate(
  jobId: string,
  d: ScheduleDescription,
  trigger: Trigger,
  compiled: CompiledTrigger,
  schedulerGraceMs: number | undefined,
): JobWrite {
  const { record, input } = currentJob(jobId, d);
  const policies = compilePolicies(record.policies);
  const next: JobRecord = { ...record, trigger, timezone: compiled.timezone };
  const graceMs = { job: policies.misfireGraceMs, scheduler: schedulerGraceMs };
  const due = dueOneOffWithGrace(compiled, graceMs, new Date());
  const once = compiled.remainingActions !== undefined;
  const { spec, dstSkips, horizonEnd } = scheduleSpec(compiled, policies);
  const alerts = alertsOf(next);
  const context = runJobContext(jobId, policies, once, next.onError, {
    alerts: alerts.run,
    dstSkips,
    horizonEnd,
  });
  const base = updated(d, { ...input, job: context }, next);
  const update = {
    ...base,
    action: { ...base.action, memo: withDueMark(base.action.memo, due) },
    spec,
    state: {
      ...d.state,
      remainingActions: once ? compiled.remainingActions : undefined,
      ...dueState(due, d.state.paused, compiled.runAt),
    },
  };
  // The update keeps the schedule's policies: the backfill takes its overlap.
  return { update, record: next, alerts, ...(due ? { dueRun: dueBackfill(due, d.policies.overlap) } : {}) };
}

/** pauseJob/resumeJob: the paused flag and the note, nothing else. */
export function pauseUpdate(jobId: string, d: ScheduleDescription, paused: boolean, note: string): JobWrite {
  checkOurs(jobId, d);
  // The record as it is, written again: this leaves only its listed fields in the search attribute, which
  // a job written before alerts were kept out of it still holds with its alert targets.
  const record = decodeJobRecord(d.typedSearchAttributes, d.action.memo);
  const update = {
    ...d,
    searchAttributes: undefined,
    ...(record ? { typedSearchAttributes: withRecord(d, record) } : {}),
    state: { ...d.state, paused, note },
  };
  return { update, record, alerts: record ? alertsOf(record) : {} };
}

/**
 * createJob with replaceExisting on an existing job: everything as a new job would have it, except the
 * schedule's own memo (it cannot change) and a due one-off's backfill (the caller sends it once landed;
 * the due mark says it is owed until then).
 */
export function replaceUpdate(
  jobId: string,
  d: ScheduleDescription,
  job: NewJobWrite,
  due?: DueOneOff,
): JobWrite {
  checkOurs(jobId, d);
  // A writer that does not set runMetadata (`tflow apply`, a scheduler left at the default) keeps the
  // job's choice: its runs' UI metadata stays off if it was.
  const inherited =
    job.record.runMetadata === undefined
      ? decodeJobRecord(d.typedSearchAttributes, d.action.memo)
      : undefined;
  const written = inherited?.runMetadata === false ? withoutRunMetadata(job) : job;
  const { scheduleId: _id, memo: _memo, state, action, ...rest } = written.options;
  const { backfill: _backfill, ...kept } = state;
  return {
    update: { ...rest, action: { ...action, memo: withDueMark(action.memo, due) }, state: kept },
    record: written.record,
    alerts: written.alerts,
    ...(due ? { dueRun: dueBackfill(due, job.options.policies.overlap) } : {}),
  };
}

/** `job` as written with `runMetadata: false`: its record says so, its action has no UI metadata. */
function withoutRunMetadata(job: NewJobWrite): NewJobWrite {
  const record: JobRecord = { ...job.record, runMetadata: false };
  const encoded = encodeListedRecord(record);
  const { staticSummary: _summary, staticDetails: _details, ...action } = job.options.action;
  const others = (job.options.typedSearchAttributes ?? []).filter(
    (p) => p.key.name !== JOB_SEARCH_ATTRIBUTE.name,
  );
  return {
    ...job,
    record,
    options: {
      ...job.options,
      action: { ...action, memo: { ...action.memo, [JOB_RECORD_MEMO_KEY]: record } },
      typedSearchAttributes: encoded ? [...others, { key: JOB_SEARCH_ATTRIBUTE, value: encoded }] : others,
    },
  };
}

/** A new job as replaceUpdate writes it over an existing one: its schedule's options, record and alerts. */
export interface NewJobWrite {
  readonly options: ReturnType<typeof createOptions>;
  readonly record: JobRecord;
  readonly alerts: CompiledAlerts;
}

/**
 * modifyJob: new args, note, policies or onError; the spec keeps its times, and its horizon (holidays,
 * weekday corrections, DST policy) is compiled again from `now`.
 *
 * @param now the start of the horizon; the current compile of the trigger is reused when it is not given.
 */
export function modifyUpdate(
  jobId: string,
  d: ScheduleDescription,
  changes: JobChanges,
  now?: Date,
): JobWrite {
  return modifiedJob(jobId, d, currentJob(jobId, d), changes, now);
}

/**
 * The renewal of a job's horizon (see client/jobs/store/job-renewal.ts): modifyJob with no changes, its trigger
 * compiled again from `now`; undefined for a job whose spec was edited outside temporal-flow (its spec is
 * not ours to compile, and a renewal must not adopt the edit as modifyJob does).
 */
export function renewalUpdate(jobId: string, d: ScheduleDescription, now: Date): RenewalWrite | undefined {
  const current = currentJob(jobId, d);
  if (current.editedOutside) return undefined;
  return modifiedJob(jobId, d, current, { alerts: {}, policies: {} }, now);
}

/** A renewal's write, with the end of the horizon it compiled (undefined: none). */
export interface RenewalWrite extends JobWrite {
  readonly horizonEnd: string | undefined;
}

function modifiedJob(
  jobId: string,
  d: ScheduleDescription,
  current: CurrentJob,
  changes: JobChanges,
  now: Date | undefined,
): RenewalWrite {
  const { record, input, editedOutside } = current;
  const given = asGiven({ ...record.policies, ...changes.policies });
  const policies = compilePolicies(given);
  const next: JobRecord = { ...record, policies: given };
  if (changes.onError === null) delete next.onError;
  else if (changes.onError !== undefined) next.onError = changes.onError;
  const givenAlerts = withAlertChanges(record.alerts, changes.alerts);
  if (givenAlerts) next.alerts = givenAlerts;
  else delete next.alerts;
  // Each changed field was checked by parseJobChanges; what is left needs the job's alerts as they will
  // be: that each target has its duration (InvalidArgumentError naming the missing half).
  const alerts = alertsOf(next);
  // A spec edited outside temporal-flow is kept as it is (and adopted): modifyJob never changes when.
  // A schedule without a record (only the spec's meaning) has its trigger compiled here for the first time.
  const compiled = editedOutside
    ? undefined
    : now
      ? compileTrigger(record.trigger, record.timezone, undefined, now)
      : (current.compiled ?? compileTrigger(record.trigger, record.timezone));
  const written = compiled ? scheduleSpec(compiled, policies, now) : undefined;
  // A spec edited outside keeps its runs' skips as they were (they name that spec's times, if any), and
  // has no horizon of ours left to renew.
  const dstSkips = written ? written.dstSkips : input.job?.dstSkips;
  const job = runJobContext(jobId, policies, input.job?.once === true, next.onError, {
    alerts: alerts.run,
    dstSkips,
    horizonEnd: written?.horizonEnd,
  });
  const update = {
    ...updated(d, { ...input, args: changes.args ?? input.args, job }, next),
    spec: written ? written.spec : d.spec,
    policies: { ...d.policies, catchupWindow: undefined, ...schedulePolicies(policies) },
    state: { ...d.state, ...(changes.note !== undefined ? { note: changes.note } : {}) },
  };
  return { update, record: next, alerts, horizonEnd: written?.horizonEnd };
}

/** A record's alerts compiled, once per write (its targets were checked against the steps when given). */
function alertsOf(record: JobRecord): CompiledAlerts {
  return record.alerts ? compileAlerts(record.alerts) : {};
}

/** The job's alerts with modifyJob's changes: a value sets, null removes, absent keeps. */
export function withAlertChanges(
  current: JobAlerts | undefined,
  changes: AlertChanges,
): JobAlerts | undefined {
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return Object.keys(next).length > 0 ? asGiven(next) : undefined;
}

import type { ScheduleDescription, ScheduleOptions, ScheduleUpdateOptions } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { PipelineSpec } from '../pipeline/spec';
import { compileTrigger, type CompiledTrigger } from '../schedule/compile-trigger';
import { InvalidTriggerError } from '../schedule/errors';
import type { DueOneOff } from '../schedule/one-off-due';
import { compilePolicies, type CompiledPolicies, type JobPolicies } from '../schedule/policies';
import type { Trigger } from '../schedule/trigger-types';
import { PIPELINE_WORKFLOW_TYPE, type PipelineRunInput } from '../workflows/run-types';
import { JOB_SEARCH_ATTRIBUTE } from '../workflows/search-attributes';
import { ForeignScheduleError, JobNotFoundError } from './errors';
import { jobFromDescription } from './job-describe';
import { JOB_MEMO_KEY, type JobMemo } from './job-memo';
import { asGiven, runJobContext, schedulePolicies, scheduleSpec, type ModifyJobOptions } from './job-options';
import { ACTION_MEMO_KEY, decodeJobRecord, encodeJobRecord, type JobRecord } from './job-record';
import { runStartOptions } from './run-start';

/*
 * Pure builders of what the scheduler sends to Temporal: the options of a new schedule, and the update of
 * an existing one for rescheduleJob (when) and modifyJob (what). Every write keeps the job record in both
 * of its places (action memo and TflowJob search attribute, see job-record.ts).
 */

/** Everything a new job is made of, validated. */
export interface NewJob {
  jobId: string;
  taskQueue: string;
  spec: PipelineSpec;
  args: unknown[];
  trigger: Trigger;
  compiled: CompiledTrigger;
  given: JobPolicies;
  policies: CompiledPolicies;
  onError: string | undefined;
  paused: boolean;
  note: string | undefined;
  /** Set for a one-off whose runAt is due now (see dueOneOff): it runs at once, by backfill. */
  due?: DueOneOff | undefined;
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
export function dueBackfill(due: DueOneOff, overlap: CompiledPolicies['overlap']) {
  return { start: new Date(due.at.getTime() - 1_000), end: due.at, overlap };
}

/** The options of a new job's schedule. */
export function createOptions(job: NewJob) {
  const record: JobRecord = {
    v: 1,
    trigger: asGiven(job.trigger),
    timezone: job.compiled.timezone,
    policies: asGiven(job.given),
    ...(job.onError ? { onError: job.onError } : {}),
  };
  const encoded = encodeJobRecord(record);
  const once = job.compiled.remainingActions !== undefined;
  return {
    scheduleId: job.jobId,
    spec: scheduleSpec(job.compiled, job.policies),
    action: {
      type: 'startWorkflow' as const,
      workflowType: PIPELINE_WORKFLOW_TYPE,
      workflowId: job.jobId,
      taskQueue: job.taskQueue,
      memo: { [ACTION_MEMO_KEY]: record },
      ...runStartOptions(job.spec, job.args, runJobContext(job.jobId, job.policies, once, job.onError)),
    },
    policies: schedulePolicies(job.policies),
    state: {
      paused: job.paused,
      ...(job.note !== undefined ? { note: job.note } : {}),
      ...(once ? { remainingActions: job.compiled.remainingActions } : {}),
      ...dueState(job.due, job.paused, job.compiled.runAt),
      ...(job.due ? { backfill: [dueBackfill(job.due, job.policies.overlap)] } : {}),
    },
    memo: { [JOB_MEMO_KEY]: { v: 1, pipeline: job.spec.name } satisfies JobMemo },
    ...(encoded ? { typedSearchAttributes: [{ key: JOB_SEARCH_ATTRIBUTE, value: encoded }] } : {}),
  } satisfies ScheduleOptions;
}

/** Key of the action memo's mark on a one-off that has run and is about to be deleted. Persisted. */
export const FINISHED_MEMO_KEY = 'tflowFinished';

/**
 * The clean-up of a spent one-off, written (with the conflict token) before the delete, which has none:
 * an edit computed before this mark is dropped and re-read, and every edit that reads it is refused, so the
 * delete never takes an edit with it.
 */
export function finishedUpdate(d: ScheduleDescription): ScheduleUpdateOptions {
  return {
    ...d,
    action: { ...d.action, memo: { ...d.action.memo, [FINISHED_MEMO_KEY]: true } },
    searchAttributes: undefined,
    state: { ...d.state, paused: true, note: 'one-off job done: being removed' },
  };
}

/** The job's record as it stands, with whether its spec was edited outside temporal-flow. */
interface CurrentJob {
  record: JobRecord;
  editedOutside: boolean;
  input: PipelineRunInput;
}

/**
 * Reads one of our jobs from the description an update starts from.
 *
 * @throws ForeignScheduleError for a schedule temporal-flow did not create.
 */
export function currentJob(jobId: string, d: ScheduleDescription): CurrentJob {
  const job = jobFromDescription(d);
  if (job.foreign) throw new ForeignScheduleError(jobId);
  // A one-off that has run and is being deleted: an edit now would be deleted with it.
  if (d.action.memo?.[FINISHED_MEMO_KEY] === true) throw new JobNotFoundError(jobId);
  const stored = decodeJobRecord(d.typedSearchAttributes, d.action.memo);
  return {
    record: {
      v: 1,
      trigger: job.trigger,
      timezone: job.timezone,
      policies: job.policies,
      ...(stored?.onError ? { onError: stored.onError } : {}),
    },
    editedOutside: job.editedOutside,
    input: d.action.args?.[0] as PipelineRunInput,
  };
}

/** The schedule's search attributes with the job record replaced. */
function withRecord(d: ScheduleDescription, record: JobRecord): TypedSearchAttributes {
  const encoded = encodeJobRecord(record);
  const others = d.typedSearchAttributes.getAll().filter((p) => p.key.name !== JOB_SEARCH_ATTRIBUTE.name);
  return new TypedSearchAttributes(
    encoded ? [...others, { key: JOB_SEARCH_ATTRIBUTE, value: encoded }] : others,
  );
}

/** The common part of an update: the action with new input, the record in both places. */
function updated(d: ScheduleDescription, input: PipelineRunInput, record: JobRecord) {
  return {
    ...d,
    action: { ...d.action, args: [input], memo: { ...d.action.memo, [ACTION_MEMO_KEY]: record } },
    // The deprecated untyped copy would win over the typed one: drop it.
    searchAttributes: undefined,
    typedSearchAttributes: withRecord(d, record),
  };
}

/**
 * rescheduleJob: a new trigger (and one remaining action for a one-off, none for the others; none either
 * for a one-off due now, which the caller backfills once this update landed). `dueFor` decides, from the
 * job's policies, whether a one-off runAt is due now (and throws when it is too late).
 */
export function rescheduleUpdate(
  jobId: string,
  d: ScheduleDescription,
  trigger: Trigger,
  compiled: CompiledTrigger,
  dueFor: (policies: JobPolicies) => DueOneOff | undefined,
): { update: ScheduleUpdateOptions; due: DueOneOff | undefined } {
  const { record, input } = currentJob(jobId, d);
  const due = dueFor(record.policies);
  const policies = compilePolicies(record.policies);
  const once = compiled.remainingActions !== undefined;
  const next: JobRecord = { ...record, trigger: asGiven(trigger), timezone: compiled.timezone };
  const job = runJobContext(jobId, policies, once, record.onError);
  const update = {
    ...updated(d, { ...input, job }, next),
    spec: scheduleSpec(compiled, policies),
    state: {
      ...d.state,
      remainingActions: once ? compiled.remainingActions : undefined,
      ...dueState(due, d.state.paused, compiled.runAt),
    },
  };
  return { update, due };
}

/** pauseJob/resumeJob: the paused flag and the note, nothing else. */
export function pauseUpdate(
  jobId: string,
  d: ScheduleDescription,
  paused: boolean,
  note: string,
): ScheduleUpdateOptions {
  currentJob(jobId, d);
  return { ...d, searchAttributes: undefined, state: { ...d.state, paused, note } };
}

/**
 * createJob with replaceExisting on an existing job: everything as a new job would have it, except the
 * schedule's own memo (it cannot change) and a due one-off's backfill (the caller sends it once landed).
 */
export function replaceUpdate(
  jobId: string,
  d: ScheduleDescription,
  options: ReturnType<typeof createOptions>,
): ScheduleUpdateOptions {
  currentJob(jobId, d);
  const { scheduleId: _id, memo: _memo, state, ...rest } = options;
  const { backfill: _backfill, ...kept } = state;
  return { ...rest, state: kept };
}

/** modifyJob: new args, note, policies or onError; the spec keeps its times. */
export function modifyUpdate(
  jobId: string,
  d: ScheduleDescription,
  changes: ModifyJobOptions,
): ScheduleUpdateOptions {
  const { onError, args, note, ...policyChanges } = changes;
  const { record, input, editedOutside } = currentJob(jobId, d);
  const given: JobPolicies = asGiven({ ...record.policies, ...policyChanges });
  const policies = compilePolicies(given);
  const next: JobRecord = { ...record, policies: given };
  if (onError === null) delete next.onError;
  else if (onError !== undefined) next.onError = onError;
  // A spec edited outside temporal-flow is kept as it is (and adopted): modifyJob never changes when.
  const compiled = editedOutside ? undefined : compileTrigger(record.trigger, record.timezone);
  const job = runJobContext(jobId, policies, input.job?.once === true, next.onError);
  return {
    ...updated(d, { ...input, args: args ?? input.args, job }, next),
    spec: compiled ? scheduleSpec(compiled, policies) : d.spec,
    policies: { ...d.policies, catchupWindow: undefined, ...schedulePolicies(policies) },
    state: { ...d.state, ...(note !== undefined ? { note } : {}) },
  };
}

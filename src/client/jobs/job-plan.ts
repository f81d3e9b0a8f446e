import type { Client, ScheduleDescription } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { translateServiceError } from '../errors';
import { describeJobIfAny } from './store/describe-job';
import type { JobDefaults, PreparedJob } from './job-compile';
import {
  APPLIED_MEMO_KEY,
  SCHEDULE_MEMO_KEY,
  ourJobMemo,
  type AppliedMark,
  type JobMemo,
} from './store/schedule-memo';
import type { BlockedReason, JobPlan, JobSet, PlanAction, PlannedJob, PlanOptions } from './job-plan-types';
import { decodeJobRecord } from './store/job-record';
import { prepareJobSet } from './job-set';
import {
  canonicalJson,
  desiredView,
  diffViews,
  markedView,
  observedView,
  recordedView,
  type FieldChange,
  type ShownView,
} from './job-view';
import { FINISHED_MEMO_KEY } from './store/build-updates';
import { SET_SEARCH_ATTRIBUTE } from '../../workflows/search-attributes';
import { listSchedulesReadable } from '../schedule-listing';

/*
 * plan(): a jobs file against the namespace. Each listed job is described (strongly consistent) and
 * compared, in the canonical views of job-view.ts, with what the file asks for; with `prune`, the jobs of
 * the set that the file no longer lists are found by a listing (eventually consistent: a job created a
 * moment ago may be missed once) and described again. The plan keeps, per job, what it read (conflict
 * token, view and state), so that apply can refuse when a job changed since (job-apply.ts).
 */

/** What a plan read of one job and what apply writes there. Not part of the public plan. */
export interface PlanEntry {
  readonly jobId: string;
  readonly action: PlanAction;
  /** What the plan read: undefined when the job did not exist. */
  readonly read: string | undefined;
  /** The job to write (create, update). */
  readonly prepared?: PreparedJob;
  /** The state to write: paused and note as the plan resolved them. */
  readonly state?: { paused: boolean; note: string | undefined };
  /** The mark to store with the write (see AppliedMark). */
  readonly mark?: AppliedMark;
}

/** The plans made here, with what they read: apply takes only those. */
export const planEntries = new WeakMap<JobPlan, { entries: PlanEntry[]; set: string }>();

/**
 * What a plan read of a schedule, as one text: its conflict token (every update changes it), its view
 * and its state (pausing changes the token too; the view guards servers that would not).
 */
export function readKey(d: ScheduleDescription | undefined): string | undefined {
  if (!d) return undefined;
  const token = d.raw.conflictToken ? Buffer.from(d.raw.conflictToken).toString('base64') : '';
  return canonicalJson({
    token,
    view: observedView(d).view,
    paused: d.state.paused,
    note: d.state.note ?? '',
    finished: isFinished(d),
  });
}

/**
 * The set that owns a schedule of ours: the one that created it (the schedule's memo, which nothing can
 * change), else the one that adopted it (the TflowSet search attribute, which an outside edit keeps), else
 * the one whose apply wrote it last (the mark in the action memo, which an outside edit replaces: all a job
 * adopted before TflowSet existed has).
 */
function ownerOf(d: ScheduleDescription, memo: JobMemo): string | undefined {
  return memo.set ?? setAttributeOf(d) ?? appliedMark(d)?.set;
}

/** The set a schedule's TflowSet search attribute names, if any. */
function setAttributeOf(d: {
  typedSearchAttributes?: TypedSearchAttributes | undefined;
}): string | undefined {
  const value = d.typedSearchAttributes?.get(SET_SEARCH_ATTRIBUTE);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Whether a schedule is left marked as being deleted (a delete that failed after its mark: job-apply.ts). */
const isFinished = (d: ScheduleDescription) => d.action.memo?.[FINISHED_MEMO_KEY] === true;

function appliedMark(d: ScheduleDescription): AppliedMark | undefined {
  const value = d.action.memo?.[APPLIED_MEMO_KEY] as Partial<AppliedMark> | undefined;
  return value?.v === 1 && typeof value.set === 'string' && typeof value.view === 'object'
    ? (value as AppliedMark)
    : undefined;
}

/** Why the set cannot use a schedule, or undefined when it may. */
function blockOf(
  jobId: string,
  d: ScheduleDescription,
  set: string,
  adopt: boolean,
): PlannedJob['blocked'] | undefined {
  const memo = ourJobMemo(d.memo, d.action.workflowType);
  if (!memo) {
    return {
      reason: 'foreign',
      message: `schedule "${jobId}" was not created by temporal-flow: it is left alone; rename the job in the file or remove that schedule`,
    };
  }
  const owner = ownerOf(d, memo);
  if (owner === set) return undefined;
  if (owner === undefined) {
    if (adopt) return undefined;
    return {
      reason: 'no-set' satisfies BlockedReason,
      message: `job "${jobId}" was created by temporal-flow outside any jobs file (schedule(), a deploy script): apply with --adopt (adopt: true) to make it this set's`,
    };
  }
  return {
    reason: 'other-set',
    owner,
    message: `job "${jobId}" belongs to set "${owner}": it is left alone; rename the job in one of the files`,
  };
}

/** Paused and note as apply leaves them: the file's when it sets them, else the job's (runtime state). */
function runtimeState(
  given: { paused?: boolean | undefined; note?: string | undefined },
  d: ScheduleDescription | undefined,
): { state: { paused: boolean; note: string | undefined }; changes: FieldChange[]; kept: string[] } {
  const current = d ? { paused: d.state.paused, note: d.state.note || undefined } : undefined;
  const kept: string[] = [];
  let paused = given.paused ?? current?.paused ?? false;
  let note = given.note ?? current?.note;
  if (current && given.paused === undefined && current.paused) {
    // Paused by hand (on-call's): kept with its note until the file sets `paused`.
    paused = true;
    note = current.note;
    kept.push(
      `paused${current.note ? ` (note ${JSON.stringify(current.note)})` : ''}: kept, the file does not set paused`,
    );
  }
  const changes: FieldChange[] = [];
  if (current ? paused !== current.paused : paused) {
    changes.push({
      field: 'paused',
      ...(current ? { from: String(current.paused) } : {}),
      to: String(paused),
    });
  }
  if ((note ?? '') !== (current?.note ?? '')) {
    changes.push({
      field: 'note',
      ...(current?.note !== undefined ? { from: JSON.stringify(current.note) } : {}),
      to: note === undefined ? '(none)' : JSON.stringify(note),
    });
  }
  return { state: { paused, note }, changes, kept };
}

/** Edits made outside temporal-flow since the last apply: the mark (else the record) against the schedule. */
function driftOf(d: ScheduleDescription, observed: ShownView, set: string): FieldChange[] {
  const mark = appliedMark(d);
  if (mark && mark.set === set)
    return diffViews({ view: markedView(mark.view), trigger: mark.trigger }, observed);
  const record = decodeJobRecord(d.typedSearchAttributes, d.action.memo);
  if (!record) return [];
  const recorded = recordedView(record);
  // Only what the record knows: the rest of the last write went with the replaced memo.
  const known = Object.fromEntries(Object.entries(observed.view).filter(([field]) => field in recorded.view));
  return diffViews(recorded, { view: known, trigger: observed.trigger });
}

function planOne(
  jobId: string,
  prepared: PreparedJob,
  given: { paused?: boolean | undefined; note?: string | undefined },
  d: ScheduleDescription | undefined,
  set: string,
  adopt: boolean,
): { job: PlannedJob; entry: PlanEntry } {
  const desired = desiredView(prepared);
  const read = readKey(d);
  const mark: AppliedMark = {
    v: 1,
    set,
    view: desired.view,
    trigger: desired.trigger,
  };
  const pipeline = prepared.pipeline.name;
  // A schedule left marked as being deleted is no job: apply finishes its delete, then creates the job.
  if (!d || isFinished(d)) {
    const { state, changes: stateChanges } = runtimeState(given, undefined);
    const changes = [
      ...diffViews({ view: {}, trigger: '' }, desired).map(({ field, to }) => ({ field, to: to! })),
      ...stateChanges,
    ];
    return {
      job: { jobId, action: 'create', pipeline, changes },
      entry: { jobId, action: 'create', read, prepared, state, mark },
    };
  }
  const blocked = blockOf(jobId, d, set, adopt);
  if (blocked) {
    return {
      job: { jobId, action: 'blocked', pipeline, changes: [], blocked },
      entry: { jobId, action: 'blocked', read },
    };
  }
  const observed = observedView(d);
  const { state, changes: stateChanges, kept } = runtimeState(given, d);
  const changes = [...diffViews(observed, desired), ...stateChanges];
  const drift = driftOf(d, observed, set);
  const marked = appliedMark(d)?.set === set;
  // Ownership where an outside edit keeps it: the schedule's memo (set at create) or TflowSet.
  const lasting = ourJobMemo(d.memo, d.action.workflowType)?.set === set || setAttributeOf(d) === set;
  if (!marked && !lasting) kept.push(`adopted: the job becomes set "${set}"'s`);
  else if (!lasting) {
    kept.push(`ownership: written to the job's TflowSet search attribute, which an outside edit keeps`);
  }
  const action: PlanAction =
    changes.length > 0 || drift.length > 0 || !marked || !lasting ? 'update' : 'unchanged';
  return {
    job: {
      jobId,
      action,
      pipeline,
      changes,
      ...(drift.length > 0 ? { drift } : {}),
      ...(kept.length > 0 ? { kept } : {}),
    },
    entry: { jobId, action, read, prepared, state, mark },
  };
}

/**
 * The jobs of `set` that a listing shows (ids only: each is described before use): those it created (the
 * schedule's memo) and those it adopted (TflowSet). One listing of every schedule, since a schedule's memo
 * cannot be queried.
 */
async function listSetJobs(client: Client, set: string): Promise<string[]> {
  const ids: string[] = [];
  try {
    for await (const s of listSchedulesReadable(client)) {
      const memo = s.memo?.[SCHEDULE_MEMO_KEY] as Partial<JobMemo> | undefined;
      if (memo?.set === set || setAttributeOf(s) === set) ids.push(s.scheduleId);
    }
  } catch (err) {
    translateServiceError(err);
  }
  return ids;
}

const byId = (a: { jobId: string }, b: { jobId: string }) =>
  a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0;

/**
 * Compares a checked jobs file with the namespace.
 *
 * @throws JobSetError when a job is refused with these defaults (nothing is read then).
 */
export async function planJobs(
  client: Client,
  defaults: JobDefaults,
  set: JobSet,
  opts: PlanOptions & { adopt?: boolean } = {},
): Promise<JobPlan> {
  const prepared = prepareJobSet(set, defaults);
  const describe = async (id: string) => {
    try {
      return await describeJobIfAny(client, id);
    } catch (err) {
      translateServiceError(err);
    }
  };
  const listed = [...prepared.keys()];
  const found = await Promise.all(listed.map(describe));
  const jobs: PlannedJob[] = [];
  const entries: PlanEntry[] = [];
  listed.forEach((id, i) => {
    const def = set.jobs.find((j) => j.jobId === id)!.options;
    const given = { paused: def.paused, note: def.note };
    const { job, entry } = planOne(id, prepared.get(id)!, given, found[i], set.set, opts.adopt === true);
    jobs.push(job);
    entries.push(entry);
  });
  if (opts.prune) {
    const gone = (await listSetJobs(client, set.set)).filter((id) => !prepared.has(id));
    for (const id of gone) {
      // One left marked as being deleted is deleted again (its delete failed).
      const d = await describe(id);
      if (!d) continue;
      const memo = ourJobMemo(d.memo, d.action.workflowType);
      if (!memo || ownerOf(d, memo) !== set.set) continue;
      const observed = observedView(d);
      const changes = diffViews({ view: {}, trigger: '' }, observed).map(({ field, to }) => ({
        field,
        from: to!,
      }));
      jobs.push({ jobId: id, action: 'delete', pipeline: memo.pipeline, changes });
      entries.push({ jobId: id, action: 'delete', read: readKey(d) });
    }
  }
  jobs.sort(byId);
  entries.sort(byId);
  const summary = { create: 0, update: 0, delete: 0, unchanged: 0, blocked: 0 };
  for (const j of jobs) summary[j.action]++;
  const plan: JobPlan = {
    set: set.set,
    prune: opts.prune === true,
    namespace: client.options.namespace,
    jobs,
    summary,
    hasChanges: summary.create + summary.update + summary.delete > 0,
  };
  planEntries.set(plan, { entries, set: set.set });
  return plan;
}

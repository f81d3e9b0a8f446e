import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  type Client,
  type ScheduleDescription,
} from '@temporalio/client';
import { SET_SEARCH_ATTRIBUTE } from '../../workflows/search-attributes';
import { InvalidArgumentError } from '../../errors';
import type { JobDefaults, PreparedJob } from './job-compile';
import { APPLIED_MEMO_KEY, SCHEDULE_MEMO_KEY } from './store/schedule-memo';
import {
  ApplyFailedError,
  PlanBlockedError,
  PlanStaleError,
  type AppliedJob,
  type StaleJob,
} from './job-plan-errors';
import type { ApplyResult, JobPlan } from './job-plan-types';
import { planEntries, readKey, type PlanEntry } from './job-plan';
import { describeJobIfAny } from './store/describe-job';
import { JobConflictError, translateScheduleError, translateServiceError } from '../errors';
import { updateJob } from './store/send-update';
import { withAlertsOfRecord } from './store/job-alerts-attribute';
import { ensureAlertEvaluator } from './alert-evaluator';
import { FINISHED_MEMO_KEY, replaceUpdate } from './store/build-updates';

/*
 * apply(): makes the namespace what a plan said, through the conflict-token write path of send-update.ts.
 * First every job to write is described again and compared with what the plan read: one that changed
 * (or appeared, or went) refuses the whole apply before anything is written. Then each job is written
 * once, with the conflict token of a description that still matches the plan (one attempt, never a
 * retry onto someone else's change); a write that lost to a concurrent one stops the apply there. Each
 * write is one UpdateSchedule (or one create), so a job is always as it was or as planned, never a mix.
 * A delete first marks the job as being removed, with the token, so that a writer that got in between
 * makes the delete refuse rather than take its write along.
 */

const stale = (jobId: string, change: StaleJob['change']) => new PlanStaleError([{ jobId, change }]);

/** How a job changed since the plan read it (undefined: it did not). */
function changeSince(entry: PlanEntry, d: ScheduleDescription | undefined): StaleJob['change'] | undefined {
  const now = readKey(d);
  if (now === entry.read) return undefined;
  if (entry.read === undefined) return 'created';
  return d ? 'changed' : 'deleted';
}

/**
 * The options to write: the plan's state, the set's ownership (in the schedule's memo for a new job, and
 * in TflowSet, which an adoption can write and an outside edit keeps) and the mark of what was written.
 */
function written(prepared: PreparedJob, entry: PlanEntry, set: string) {
  const { options } = prepared;
  const others = (options.typedSearchAttributes ?? []).filter(
    (p) => p.key.name !== SET_SEARCH_ATTRIBUTE.name,
  );
  const state = { ...options.state, paused: entry.state!.paused };
  if (entry.state!.note === undefined) delete state.note;
  else state.note = entry.state!.note;
  return {
    ...options,
    action: { ...options.action, memo: { ...options.action.memo, [APPLIED_MEMO_KEY]: entry.mark! } },
    state,
    memo: { [SCHEDULE_MEMO_KEY]: { ...options.memo[SCHEDULE_MEMO_KEY], set } },
    typedSearchAttributes: [...others, { key: SET_SEARCH_ATTRIBUTE, value: set }],
  };
}

/** Writes one job with the conflict token of a description that still matches the plan. */
async function writeOne(client: Client, defaults: JobDefaults, entry: PlanEntry, set: string): Promise<void> {
  const { jobId } = entry;
  if (entry.action === 'create') {
    try {
      await client.schedule.create(
        await withAlertsOfRecord(
          client.options.loadedDataConverter,
          written(entry.prepared!, entry, set),
          undefined,
        ),
      );
    } catch (err) {
      if (err instanceof ScheduleAlreadyRunning) throw stale(jobId, 'created');
      translateScheduleError(err, jobId);
    }
    return;
  }
  const guard = (d: ScheduleDescription) => {
    const change = changeSince(entry, d);
    if (change) throw stale(jobId, change);
  };
  try {
    if (entry.action === 'update') {
      const job = { ...entry.prepared!, options: written(entry.prepared!, entry, set) };
      await updateJob(client, jobId, (d) => (guard(d), replaceUpdate(jobId, d, job)), 1);
      return;
    }
    // delete: the mark of a job being removed, with the token, then the delete (which takes none).
    await updateJob(
      client,
      jobId,
      (d) => (
        guard(d),
        {
          update: {
            ...d,
            action: { ...d.action, memo: { ...d.action.memo, [FINISHED_MEMO_KEY]: true } },
            searchAttributes: undefined,
            state: { ...d.state, paused: true, note: `removed by apply of set "${set}"` },
          },
        }
      ),
      1,
    );
    try {
      await client.schedule.getHandle(jobId).delete();
    } catch (err) {
      translateScheduleError(err, jobId);
    }
  } catch (err) {
    // One attempt lost to a concurrent write: the job changed after the check.
    if (err instanceof JobConflictError) throw stale(jobId, 'changed');
    throw err;
  }
}

/**
 * Deletes a schedule left marked as being deleted (its delete failed after the mark), which a create plans
 * to replace: the mark refuses every edit, so nothing but this delete was to happen to it.
 */
async function finishDelete(client: Client, jobId: string): Promise<void> {
  try {
    await client.schedule.getHandle(jobId).delete();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return;
    translateScheduleError(err, jobId);
  }
}

/**
 * Applies a plan made by planJobs.
 *
 * @throws PlanBlockedError when the plan has blocked jobs; PlanStaleError when a job changed since the
 * plan: nothing is written then. ApplyFailedError when a write failed half way (it lists the jobs applied).
 * The evaluator of the alert queue is made sure of before the first write (nothing is written when that
 * fails); the jobs' alerts need nothing else (it reads them from the schedules).
 */
export async function applyPlan(client: Client, defaults: JobDefaults, plan: JobPlan): Promise<ApplyResult> {
  const made = planEntries.get(plan);
  if (!made) {
    throw new InvalidArgumentError('plan', 'apply() takes a plan returned by plan() (of this process)');
  }
  const { entries, set } = made;
  const blocked = entries.filter((e) => e.action === 'blocked').map((e) => e.jobId);
  if (blocked.length > 0) throw new PlanBlockedError(blocked);
  const toWrite = entries.filter(
    (e) => e.action === 'create' || e.action === 'update' || e.action === 'delete',
  );
  const now = await Promise.all(
    toWrite.map(async (e) => {
      try {
        return await describeJobIfAny(client, e.jobId);
      } catch (err) {
        translateServiceError(err);
      }
    }),
  );
  const changed = toWrite.flatMap((e, i) => {
    const change = changeSince(e, now[i]);
    return change ? [{ jobId: e.jobId, change }] : [];
  });
  if (changed.length > 0) throw new PlanStaleError(changed);
  if (toWrite.some((e) => e.prepared?.alerts.watchdog !== undefined)) {
    await ensureAlertEvaluator(client, defaults.watchdogTaskQueue);
  }
  const applied: AppliedJob[] = [];
  for (const [i, entry] of toWrite.entries()) {
    try {
      if (entry.action === 'create' && entry.read !== undefined) await finishDelete(client, entry.jobId);
      await writeOne(client, defaults, entry, set);
    } catch (err) {
      const rest = toWrite.slice(i + 1).map((e) => e.jobId);
      throw new ApplyFailedError(applied, entry.jobId, rest, { cause: err });
    }
    applied.push({ jobId: entry.jobId, action: entry.action as AppliedJob['action'] });
  }
  const of = (action: string) => entries.filter((e) => e.action === action).map((e) => e.jobId);
  return {
    set,
    created: of('create'),
    updated: of('update'),
    deleted: of('delete'),
    unchanged: of('unchanged'),
    blocked: [],
  };
}

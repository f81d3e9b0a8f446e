import type { Backfill, Client, ScheduleDescription, ScheduleUpdateOptions } from '@temporalio/client';
import { planDstBackfill, type DstBackfill } from '../../schedule/dst-backfill';
import type { DstEntry } from '../../schedule/dst-compile';
import { FireTimes } from '../../schedule/fire-times';
import { backfillOverlap } from '../../schedule/policies';
import { calendarFromDescription, calendarKey } from '../../schedule/spec-calendar';
import type { PipelineRunInput } from '../../workflows/run-types';
import { ForeignScheduleError, translateScheduleError } from '../errors';
import { ourJobMemo } from './store/schedule-memo';
import { readJobState } from './store/job-state';
import { updateJob } from './store/send-update';

/*
 * backfillJob. A job without a DST policy (or whose spec was edited outside temporal-flow, so that its
 * stored policy no longer describes it) is backfilled as Temporal does it: one request for the window.
 * A job with one is backfilled as its policy says (schedule/dst-backfill.ts): the spec first gets the
 * policy's entries for the window when it lacks some (a write of the job, with its conflict token, that
 * also adds the window's skips to its runs), then the window is asked for in parts that leave out every
 * fire the policy does not run. The entries name past instants only, so the job's ordinary runs are the
 * same; the next write of the job compiles its spec from that moment again and drops them.
 */

/** The window of a backfill, both ends included (Temporal's). */
export interface BackfillWindow {
  start: Date;
  end: Date;
}

/** The plan of a backfill of this job as its description holds it; undefined without a DST policy. */
function planOf(d: ScheduleDescription, w: BackfillWindow): DstBackfill | undefined {
  const { compiled } = readJobState(d.typedSearchAttributes, d.action.memo, d.spec);
  if (!compiled?.dst) return undefined;
  return planDstBackfill(new FireTimes(compiled.fire), compiled.dst, w.start.getTime(), w.end.getTime());
}

/** The plan's entries the schedule's spec does not have yet. */
function missingEntries(d: ScheduleDescription, plan: DstBackfill): DstEntry[] {
  const calendars = new Set((d.spec.calendars ?? []).map((c) => calendarKey(calendarFromDescription(c))));
  const intervals = new Set((d.spec.intervals ?? []).map((i) => `${Number(i.every)}/${Number(i.offset)}`));
  return plan.dst.entries.filter((e) =>
    'calendar' in e
      ? !calendars.has(calendarKey(e.calendar))
      : !intervals.has(`${e.interval.everySec * 1000}/${e.interval.offsetSec * 1000}`),
  );
}

/** Thrown by the update builder when the spec already has the window's entries: nothing to write. */
class EntriesHeld extends Error {}

/** The job with the window's entries added to its spec and the window's skips to its runs. */
function withWindowEntries(
  jobId: string,
  d: ScheduleDescription,
  plan: DstBackfill,
  missing: readonly DstEntry[],
): ScheduleUpdateOptions {
  if (!ourJobMemo(d.memo, d.action.workflowType)) throw new ForeignScheduleError(jobId);
  const input = d.action.args?.[0] as PipelineRunInput;
  const job = input.job && {
    ...input.job,
    dstSkips: [...new Set([...(input.job.dstSkips ?? []), ...plan.dst.skips])].sort(),
  };
  const calendars = missing.flatMap((e) => ('spec' in e ? [e.spec] : []));
  const intervals = missing.flatMap((e) =>
    'interval' in e ? [{ every: e.interval.everySec * 1000, offset: e.interval.offsetSec * 1000 }] : [],
  );
  return {
    ...d,
    spec: {
      ...d.spec,
      calendars: [...(d.spec.calendars ?? []), ...calendars],
      intervals: [...(d.spec.intervals ?? []), ...intervals],
    },
    action: { ...d.action, args: [job ? { ...input, job } : input] },
    // The deprecated untyped copy would win over the typed one: drop it.
    searchAttributes: undefined,
  };
}

/**
 * Backfills `window` of one of our jobs (described as `d`): every time of it, one run at a time unless the
 * job allows overlap ({@link backfillOverlap}); as its DST policy says when it has one, else as Temporal
 * does.
 *
 * @throws InvalidPolicyError when Temporal cannot run the window's times as the policy asks.
 * @throws JobNotFoundError, JobConflictError from the write of the window's entries.
 */
export async function backfillWindow(
  client: Client,
  jobId: string,
  d: ScheduleDescription,
  window: BackfillWindow,
): Promise<void> {
  let current = d;
  let plan = planOf(d, window);
  if (plan && missingEntries(d, plan).length > 0) {
    try {
      // `current` ends as the description the landed write was computed from: it keeps its policies.
      await updateJob(client, jobId, (latest) => {
        current = latest;
        plan = planOf(latest, window);
        const missing = plan ? missingEntries(latest, plan) : [];
        if (!plan || missing.length === 0) throw new EntriesHeld();
        return { update: withWindowEntries(jobId, latest, plan, missing) };
      });
    } catch (err) {
      if (!(err instanceof EntriesHeld)) throw err;
    }
  }
  const overlap = backfillOverlap(current.policies.overlap);
  const requests: Backfill[] = plan
    ? plan.parts.map((p) => ({ start: new Date(p.startMs), end: new Date(p.endMs), overlap }))
    : [{ start: window.start, end: window.end, overlap }];
  if (requests.length === 0) return;
  try {
    await client.schedule.getHandle(jobId).backfill(requests);
  } catch (err) {
    translateScheduleError(err, jobId);
  }
}

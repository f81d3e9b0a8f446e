/*
 * I1 (one outcome per nominal time) and I7 (no lost edit) for one job; see invariants.ts for their exact
 * statements. Every carve-out here stands for one Temporal behaviour, cited where it is applied, and is
 * no wider than that behaviour.
 */
import type { JobRun } from '../../src/client/runs/run-types';
import { isServerFault, type Call, type History, type JobLife } from './history';
import { backfilledTimes, scheduledTimes, SLACK_MS } from './job-models';

export { SLACK_MS };
import type { Tally, Violation } from './tally';

/** A state call within this long after a server fault may meet fires the restart is still catching up. */
export const CATCH_UP_MS = 15_000;
/**
 * A one-off whose second starts sooner than this after its create is sent is run by the create itself
 * (docs/scheduling.md, "A runAt in the past": the server could pass that second before the schedule
 * exists, so the create backfills it). The checker's own figure of the documented second.
 */
export const ONE_OFF_LEAD_MS = 1_000;
/** How many backfilled times Temporal's scheduler takes into its buffer a wake (BackfillsPerIteration). */
export const BACKFILL_BATCH = 10;
/**
 * Temporal's catch-up window: its minimum (MinCatchupWindow) and its default when none is set
 * (DefaultCatchupWindow, a year). temporal-flow sets max(10 s, misfireGraceTime) for a job with a grace
 * and none without (src/schedule/policies.ts; a modify that drops the grace drops the window).
 */
export const MIN_CATCHUP_MS = 10_000;
export const DEFAULT_CATCHUP_MS = 365 * 24 * 3_600_000;

export type State = 'active' | 'inactive' | 'ambiguous';
export const iso = (ms: number) => new Date(ms).toISOString();

/** The job's state at each instant, as far as the calls tell. */
function stateOf(job: JobLife, h: History): (t: number) => State {
  type Window = { lo: number; hi: number; effect: 'active' | 'inactive' | 'unknown'; removes: boolean };
  const widen = (c: Call) => {
    let lo = c.t0 - SLACK_MS;
    for (const f of h.faults)
      if (isServerFault(f) && f.t1 <= c.t0 && c.t0 - f.t1 < CATCH_UP_MS) lo = Math.min(lo, f.t0);
    return { lo, hi: c.t1 + SLACK_MS };
  };
  // Live from the schedule's own start (its createdAt, read back), which can come seconds after the
  // create call returned; unread, the job may or may not be live until a later state call says. Temporal
  // takes that start to the whole second: a time of the second it was created in may run (seen: a run for
  // 23:08:14.000 of a schedule created at 23:08:14.149), so the window opens at the start of that second.
  const windows: Window[] = [
    job.create.ok && job.createdAt !== undefined
      ? {
          lo: Math.floor(job.createdAt / 1_000) * 1_000,
          hi: job.createdAt + 1_000,
          effect: 'active',
          removes: false,
        }
      : { lo: job.create.t0, hi: job.create.t1 + SLACK_MS, effect: 'unknown', removes: false },
  ];
  const states = [...job.states];
  if (job.finalPause) states.push({ ...job.finalPause, kind: 'pause' });
  for (const s of states) {
    windows.push({
      ...widen(s),
      effect: !s.ok ? 'unknown' : s.kind === 'resume' ? 'active' : 'inactive',
      removes: s.ok && s.kind === 'remove',
    });
  }
  windows.sort((a, b) => a.lo - b.lo);
  // Merge overlapping windows: the calls in one may land in any order.
  const merged: Window[] = [];
  for (const w of windows) {
    const last = merged[merged.length - 1];
    if (last && w.lo <= last.hi) {
      last.hi = Math.max(last.hi, w.hi);
      last.removes ||= w.removes;
      if (last.effect !== w.effect) last.effect = 'unknown';
    } else merged.push({ ...w });
  }
  return (t: number) => {
    let state: State = 'inactive';
    for (const w of merged) {
      if (t < w.lo) return state;
      if (t <= w.hi) return 'ambiguous';
      // Past a removal nothing runs again, whatever came with it.
      if (w.removes) return 'inactive';
      state = w.effect === 'unknown' ? 'ambiguous' : w.effect;
    }
    return state;
  };
}

const occurrenceOf = (r: JobRun) => (r.standsFor ?? r.scheduledAt!).getTime();

/** The job's triggers, as the model read them: the create's, then each reschedule's. */
function triggersText(job: JobLife): string {
  const text = (m: JobLife['model']) => JSON.stringify(m);
  return [job.model, ...job.reschedules.map((r) => r.model)].map(text).join(' then ');
}

export function describeCalls(job: JobLife): string {
  const rel = (t: number) => `${((t - job.create.t0) / 1000).toFixed(1)}s`;
  const parts = [`created ${iso(job.create.t0)}${job.create.ok ? '' : ' (failed)'}`];
  for (const s of job.states) parts.push(`${s.kind} ${rel(s.t0)}..${rel(s.t1)}${s.ok ? '' : ' (failed)'}`);
  for (const c of job.triggers) parts.push(`trigger ${rel(c.t0)}..${rel(c.t1)}${c.ok ? '' : ' (failed)'}`);
  for (const c of job.reschedules)
    parts.push(`reschedule ${rel(c.t0)}..${rel(c.t1)}${c.ok ? '' : ' (failed)'}`);
  for (const c of job.backfills)
    parts.push(
      `backfill ${rel(c.t0)}..${rel(c.t1)} of ${iso(c.from)}..${iso(c.to)}${c.ok ? '' : ' (failed)'}`,
    );
  if (job.finalPause) parts.push(`final pause ${rel(job.finalPause.t0)}`);
  return parts.join(', ');
}

/** A call that can start one run of its own: its window of nominal seconds, and whether it was used. */
interface Cause {
  kind: 'trigger' | 'one-off create';
  lo: number;
  hi: number;
  used: boolean;
}

/**
 * Matches each extra run (at its nominal second) to a distinct cause whose window holds it: the runs in
 * time order, each to the open window that closes first (the greedy matching of points to intervals,
 * which matches as many as any matching can). Returns the runs left without a cause.
 */
function matchCauses<T extends { t: number }>(extras: T[], causes: Cause[]): T[] {
  const left: T[] = [];
  for (const x of [...extras].sort((a, b) => a.t - b.t)) {
    const open = causes.filter((c) => !c.used && c.lo <= x.t && x.t <= c.hi).sort((a, b) => a.hi - b.hi);
    if (open[0]) open[0].used = true;
    else left.push(x);
  }
  return left;
}

/**
 * The model's times of a job (its triggers' nominal times and its backfilled times), each active
 * (certain), ambiguous or inactive as far as the calls tell, with the kind of trigger that named it.
 */
export function modelTimes(
  job: JobLife,
  h: History,
): { times: Map<number, State>; kindOf: Map<number, string> } {
  const model = job.model;
  const at = stateOf(job, h);
  const end = Math.max(
    ...[job.create, ...job.states, ...(job.finalPause ? [job.finalPause] : [])].map((c) => c.t1),
  );
  const times = new Map<number, State>();
  // A time is certain only when the job was surely active and under one trigger surely in force then.
  const kindOf = new Map<number, string>();
  for (const [t, { how, kind }] of scheduledTimes(job, job.create.t0 - SLACK_MS, end + SLACK_MS)) {
    const state = at(t);
    times.set(t, state === 'active' && how === 'ambiguous' ? 'ambiguous' : state);
    kindOf.set(t, kind);
  }
  // A one-off whose second starts within ONE_OFF_LEAD_MS of the create call is run by the create itself
  // (a backfill in the schedule's initial patch), whenever the schedule's own first task comes: surely so
  // when it was that close at the answer, maybe when only at the sending (the client's clock read between).
  // Seen: a run for 23:34:52.000 of a one-off created at 23:34:51.040 whose schedule started at 23:35:17.
  if (model.kind === 'once')
    for (const t of times.keys()) {
      if (t - job.create.t0 >= ONE_OFF_LEAD_MS) continue;
      const sure = job.create.ok && t - job.create.t1 < ONE_OFF_LEAD_MS;
      // Before its schedule's start the job reads as inactive; a state call soon after may still win.
      const stateSoon = job.states.some((c) => c.t0 < job.create.t1 + SLACK_MS + CATCH_UP_MS);
      times.set(t, sure && !stateSoon ? 'active' : 'ambiguous');
    }
  for (const b of job.backfills)
    for (const [t, { sure, kind }] of backfilledTimes(job, b)) {
      times.set(t, sure ? 'active' : 'ambiguous');
      kindOf.set(t, kind);
    }
  return { times, kindOf };
}

export function checkJob(job: JobLife, h: History, v: Violation[], tally: Tally, findings: string[]): void {
  // Only a remove can make a schedule go: one that vanished at rest had a remove that failed (it may
  // have landed after all) or one that found it gone (I1 (a) and (b) still hold for it).
  // A one-off's schedule is deleted by its own run once it ends (`tflowFinishOneOff`, docs/scheduling.md
  // "One-off jobs"): gone at rest after its run at its time ended is that, not a lost job (seed 2931: a
  // one-off created 18:44:44.6, its run of 18:44:46 ended, then found gone after the final pause).
  const once = job.model.kind === 'once' ? job.model.at : undefined;
  const finishedOneOff =
    once !== undefined &&
    job.runs.some((r) => r.closedAt && r.scheduledAt && Math.abs(r.scheduledAt.getTime() - once) < 1_000);
  if (job.vanishedAtRest && finishedOneOff)
    tally.excuse('one-off gone at rest after its run ended (the run deletes its schedule)');
  if (job.vanishedAtRest && !finishedOneOff && !job.states.some((s) => s.kind === 'remove'))
    v.push({
      invariant: 'I1c',
      detail: `job ${job.id}: paused at rest, then gone with no remove sent (${describeCalls(job)})`,
    });
  const model = job.model;
  const { times, kindOf } = modelTimes(job, h);

  // Temporal's TriggerImmediately starts one run whose nominal time is the scheduler's clock when it
  // takes the request, to the whole second (the scheduler workflow's startWorkflow names the run and sets
  // TemporalScheduledStartTime from the nominal time truncated to the second): after the call was sent,
  // and by its answer give or take the slack. So one trigger call accounts for at most one run, at a
  // second in [sent - 1 s, answered + SLACK_MS]; it may share that second with a nominal time (seen: two
  // runs of 22:38:04.000, one scheduled, one triggered and buffered behind it). A one-off run at once by
  // its create is the create's one run likewise.
  const causes: Cause[] = job.triggers.map((c) => ({
    kind: 'trigger',
    lo: c.t0 - 1_000,
    hi: c.t1 + SLACK_MS,
    used: false,
  }));
  if (model.kind === 'once')
    causes.push({
      kind: 'one-off create',
      lo: job.create.t0 - 1_000,
      hi: job.create.t1 + SLACK_MS,
      used: false,
    });

  const byTime = new Map<number, JobRun[]>();
  for (const r of job.runs) {
    if (!r.scheduledAt) {
      tally.check('I1b');
      v.push({ invariant: 'I1b', detail: `job ${job.id}: run ${r.workflowId} has no nominal time` });
      continue;
    }
    const t = r.scheduledAt.getTime();
    byTime.set(t, [...(byTime.get(t) ?? []), r]);
  }
  // Each second with runs: the model's time there (if any) accounts for one run, a cause for each other.
  const extras: { t: number; run: JobRun; state: State | undefined }[] = [];
  for (const [t, runs] of byTime) {
    const state = times.get(t);
    // A second run is checked at every such second (I1a), a run where the job was surely inactive or the
    // model has no time at all (I1b); at an ambiguous time only the first applies.
    if (state === 'active') tally.check('I1a');
    else if (state === 'ambiguous') tally.check('I1a', 'ambiguous');
    else tally.check('I1b');
    const scheduled = state === 'active' || state === 'ambiguous' ? 1 : 0;
    for (const run of runs.slice(scheduled)) extras.push({ t, run, state });
  }
  const uncaused = matchCauses(extras, causes);
  tally.excuse('extra run started by its own trigger call (one per call)', extras.length - uncaused.length);
  for (const x of uncaused) {
    const runs = byTime.get(x.t)!;
    if (x.state === 'active' || x.state === 'ambiguous')
      v.push({
        invariant: 'I1a',
        detail: `job ${job.id}: nominal time ${iso(x.t)} has ${runs.length} runs (${runs.map((r) => r.workflowId).join(', ')}), more than its trigger calls account for (${describeCalls(job)})`,
      });
    else if (x.state === 'inactive')
      v.push({
        invariant: 'I1b',
        detail: `job ${job.id}: run ${x.run.workflowId} for ${iso(x.t)}, when the job was surely not active (${describeCalls(job)})`,
      });
    else {
      findings.push(
        `job ${job.id} (${triggersText(job)}): a run at ${iso(x.t)}, which the model has no cause for`,
      );
      v.push({
        invariant: 'I1b',
        detail: `job ${job.id}: run ${x.run.workflowId} at ${iso(x.t)}, neither a nominal time, a backfilled time nor a trigger's (${describeCalls(job)})`,
      });
    }
  }
  const triggersWithoutRun = causes.filter((c) => c.kind === 'trigger' && !c.used).length;

  const queueing = job.spec.maxInstances === 1 && !job.spec.coalesce;
  const backfilled = (t: number) => (kindOf.get(t) ?? '').includes('backfilled');
  const missing = [...times].filter(([t, s]) => s === 'active' && !byTime.has(t)).map(([t]) => t);
  // A backfilled time is a manual start, which a pause does not drop (canTakeScheduledAction lets a
  // manual start through whatever the schedule's state): the buffer-drop carve-out is not for it.
  const dropped = queueing ? missing.filter((t) => !backfilled(t) && droppedFromBuffer(job, h, t)) : [];
  // A start Temporal gave up on after its catch-up window leaves no run and no count: the product reports
  // it as `missed` with reason `not-started`, naming the time (docs/operations.md), and that alert is the
  // time's outcome (I6 judges whether it was due and came in time).
  const alertedNotStarted = new Set(
    h.alerts
      .filter(
        (d) => d.event.jobId === job.id && d.event.kind === 'missed' && d.event.reason === 'not-started',
      )
      .flatMap((d) => (d.event.nominalTimes ?? []).map((x) => Date.parse(x))),
  );
  const reported = missing.filter((t) => !dropped.includes(t) && alertedNotStarted.has(t));
  tally.excuse(
    'missing time the product reported as not started (missed alert, not-started)',
    reported.length,
  );
  const missingCertain = missing.filter((t) => !dropped.includes(t) && !alertedNotStarted.has(t));
  const missingBackfilled = missingCertain.filter(backfilled);
  tally.excuse('queued time dropped by a pause or removal while a run was in flight', dropped.length);
  const missingAmbiguous = [...times].filter(([t, s]) => s === 'ambiguous' && !byTime.has(t)).length;
  for (const [t, s] of times)
    if (s !== 'inactive') tally.nominalTime(kindOf.get(t) ?? '?', s === 'active' ? 'certain' : 'ambiguous');
  // (c) per time, first: which counted skip could stand for each missing time of the job's own trigger.
  // Those no count can stand for are violations whatever the counters say, read or not.
  const kinds = skipKinds(job, times, backfilled, causes);
  const judged = missingCertain.filter((t) => !backfilled(t)).map((t) => ({ t, ...kinds(t) }));
  const unexplained = judged.filter((x) => !x.overlap && !x.catchUp).map((x) => x.t);
  const firstRemove = job.states.find((s) => s.kind === 'remove');
  if (!job.counters && !job.countersBeforeRemove)
    tally.check('I1c', 'certain', judged.filter((x) => x.next !== undefined).length);
  if (unexplained.length > 0) {
    findings.push(
      `job ${job.id} (${triggersText(job)}): ${unexplained.length} certain nominal times without a run that no skip Temporal counts can stand for, ${unexplained.map(iso).join(', ')}`,
    );
    v.push({
      invariant: 'I1c',
      detail: `job ${job.id}: ${unexplained.length} nominal times had no run, and no skip Temporal counts can stand for them: no run of the job was in flight from each to the start of a later time's run, so no overlap skip (nor a buffered start), and that run started within the catch-up window (${catchUpWindow(job)} ms), so no catch-up skip: ${judged
        .filter((x) => !x.overlap && !x.catchUp)
        .map((x) => `${iso(x.t)} (next run started ${iso(x.next!)})`)
        .join(', ')} (${describeCalls(job)})`,
    });
  }
  // (c) Only where the schedule's counters were read can a missing time be checked.
  if (job.counters) {
    tally.check('I1c', 'certain', missingCertain.length);
    const S = job.counters.skippedOverlap + job.counters.missedCatchupWindow + job.counters.bufferDropped;
    const B = job.counters.buffered;
    // A skip count stands only for a time of the job's own trigger: a backfill runs every time of its
    // window (backfillBound below), so none of its times is an overlap or catch-up skip.
    const missingScheduled = missingCertain.length - missingBackfilled.length;
    tally.excuse(
      'missing time Temporal counted as skipped (overlap, catch-up window, full buffer)',
      Math.min(S, missingScheduled),
    );
    tally.excuse(
      'missing time still buffered at rest',
      Math.min(B, Math.max(0, missingScheduled - S) + missingBackfilled.length),
    );
    backfillBound(job, missingBackfilled, job.counters, 'at rest', v, findings);
    // A time counted as dropped by a pause may instead have been missed by the catch-up window (counted):
    // the scheduler, woken late after an outage, skips it before the pause drops the rest.
    const U = missingAmbiguous + dropped.length + triggersWithoutRun;
    // The times flagged one by one above are not counted again; the others by total, then by kind.
    const counted = missingCertain.filter((t) => !unexplained.includes(t));
    if (counted.length > S + B) {
      findings.push(
        `job ${job.id} (${triggersText(job)}): ${counted.length - S - B} certain nominal times without a run or a counted skip, among ${counted.map(iso).join(', ')}`,
      );
      v.push({
        invariant: 'I1c',
        detail: `job ${job.id}: ${counted.length} nominal times had no outcome but Temporal counted only ${S} skips (+${B} buffered): ${counted.map(iso).join(', ')} (${describeCalls(job)})`,
      });
    } else
      byKind(
        job,
        judged.filter((x) => counted.includes(x.t)),
        job.counters,
        'at rest',
        v,
      );
    if (S > 0) tally.check('I1c');
    if (S > missingCertain.length + U)
      v.push({
        invariant: 'I1c',
        detail: `job ${job.id}: Temporal counted ${S} skips, more than the ${missingCertain.length} certain and ${U} possible occasions without a run`,
      });
  }
  // (c) for a job removed before the rest, on the times its schedule had processed when its counters were
  // read just before the runner removed it (each such time was then run, buffered, counted as skipped, or
  // lost). Only the times of its own trigger: a backfill is processed apart, and may still be then.
  const before = job.countersBeforeRemove;
  if (!job.counters && before) {
    const lost = missingCertain.filter(
      (t) => t < before.processedBefore && t < before.readAt && !backfilled(t),
    );
    tally.check('I1c', 'certain', lost.length);
    const S = before.skippedOverlap + before.missedCatchupWindow + before.bufferDropped;
    const B = before.buffered;
    tally.excuse(
      'missing time Temporal counted as skipped (overlap, catch-up window, full buffer)',
      Math.min(S, lost.length),
    );
    tally.excuse(
      'missing time still buffered when read before its removal',
      Math.min(B, Math.max(0, lost.length - S)),
    );
    const counted = lost.filter((t) => !unexplained.includes(t));
    if (counted.length > S + B) {
      findings.push(
        `job ${job.id} (${triggersText(job)}): ${counted.length - S - B} certain nominal times without a run or a counted skip before it was removed, among ${counted.map(iso).join(', ')}`,
      );
      v.push({
        invariant: 'I1c',
        detail: `job ${job.id}: ${counted.length} nominal times it had processed before its removal (read at ${iso(before.readAt)}, next ${iso(before.processedBefore)}) had no outcome but Temporal counted only ${S} skips (+${B} buffered): ${counted.map(iso).join(', ')} (${describeCalls(job)})`,
      });
    } else
      byKind(
        job,
        judged.filter((x) => counted.includes(x.t)),
        before,
        'when read before its removal',
        v,
      );
    // S <= M + U on what the schedule can have counted by the read: a skip is counted when its time is
    // processed, so only times before the read's answer, which came before the first remove was sent.
    // Not limited to the times before its next action time: a time skipped for the catch-up window does
    // not move the schedule's last processed time (UseLastAction), so it may still be listed as next.
    const until = (firstRemove?.t0 ?? before.readAt) + SLACK_MS;
    const Mr = missingCertain.filter((t) => t <= until).length;
    const Ur =
      [...times].filter(([t, s]) => s === 'ambiguous' && !byTime.has(t) && t <= until).length +
      dropped.filter((t) => t <= until).length +
      causes.filter((c) => c.kind === 'trigger' && !c.used && c.lo <= until).length;
    if (S > 0) tally.check('I1c');
    if (S > Mr + Ur)
      v.push({
        invariant: 'I1c',
        detail: `job ${job.id}: Temporal counted ${S} skips when read before its removal (${iso(before.readAt)}), more than the ${Mr} certain and ${Ur} possible occasions without a run before then (${describeCalls(job)})`,
      });
    // Its backfills answered before the read, likewise (backfillBound): a backfill's times enter the
    // schedule's buffer at its next wake (processBackfills, at most BACKFILL_BATCH a wake), so a window of
    // no more than that, sent before the read, was then run, buffered or dropped from a full buffer. Not
    // across a server fault before the read: a start Temporal is still retrying then is neither a run nor
    // buffered, and the remove after the read ends it (the schedule's workflow is gone).
    const quiet = (lo: number, hi: number) =>
      !h.faults.some((f) => isServerFault(f) && f.t0 <= hi && f.t1 + CATCH_UP_MS >= lo);
    const sent = job.backfills.filter((b) => b.t0 < before.readAt);
    const asked = new Set(
      sent
        .filter((b) => b.ok && b.t1 + SLACK_MS < before.readAt && quiet(b.t0, before.readAt))
        .flatMap((b) => [...backfilledTimes(job, b)].filter(([, x]) => x.sure).map(([t]) => t)),
    );
    const count = sent.reduce((n, b) => n + backfilledTimes(job, b).size, 0);
    if (count <= BACKFILL_BATCH) {
      const lostBackfilled = missingCertain.filter((t) => asked.has(t));
      tally.check('I1c', 'certain', lostBackfilled.length);
      backfillBound(job, lostBackfilled, before, 'when read before its removal', v, findings);
    }
  }
  checkSkips(job, v, tally, queueing);
  checkEdits(job, h, v, tally);
}

/**
 * The backfilled times without a run (certain: the backfill call answered under one trigger surely in
 * force) against the counters read at rest. temporal-flow's backfillJob passes BUFFER_ALL, or ALLOW_ALL
 * for a job that allows overlap (src/schedule/policies.ts backfillOverlap, since e6ece02), and the
 * checker's CLI backfill the same (cli-edits.ts). Temporal takes a backfill's times as manual starts: no
 * catch-up window (processTimeRange skips only a time that is not manual), not held by a pause
 * (canTakeScheduledAction), and under those two policies never skipped for overlap (ProcessBuffer). So
 * each runs, or was still held back when read (the buffer: `buffered`), or was dropped from a full buffer
 * (`bufferDropped`, counted): never more missing than those two. Under the job's own SKIP (the product
 * before e6ece02) a SKIP job's backfill ran its window's first time and counted the others as overlap
 * skips, which the check as a whole (M <= S + B) let pass.
 */
function backfillBound(
  job: JobLife,
  missing: number[],
  counters: NonNullable<JobLife['counters']>,
  when: string,
  v: Violation[],
  findings: string[],
): void {
  const held = counters.buffered + counters.bufferDropped;
  if (missing.length <= held) return;
  findings.push(
    `job ${job.id} (${triggersText(job)}): ${missing.length - held} backfilled times without a run, among ${missing.map(iso).join(', ')}`,
  );
  v.push({
    invariant: 'I1c',
    detail: `job ${job.id}: ${missing.length} backfilled times had no run, but a backfill runs every time of its window (BUFFER_ALL / ALLOW_ALL, manual starts) and only ${counters.buffered} were still buffered ${when} (+${counters.bufferDropped} dropped from a full buffer): ${missing.map(iso).join(', ')} (skips counted: overlap ${counters.skippedOverlap}, catch-up window ${counters.missedCatchupWindow}; ${describeCalls(job)})`,
  });
}

/**
 * A queueing job's (overlap BUFFER_ALL) time T is held back only while a run of the job is in flight,
 * and a pause or removal drops what is held, uncounted: Temporal's scheduler workflow (processBuffer)
 * takes the next buffered start only once nothing runs, and then drops it without a count when the
 * schedule is paused ("try again to drain the buffer if paused"); a deleted schedule holds nothing. So T
 * is excused as dropped only when runs of the job were in flight without a break from T until a pause or
 * removal was sent, and no run of a later time started before that call (the buffer is first in, first
 * out). The scheduler learns of a close within the slack, or once it runs again after a server fault.
 */
function droppedFromBuffer(job: JobLife, h: History, t: number): boolean {
  const stops = [
    ...job.states.filter((s) => s.kind !== 'resume'),
    ...(job.finalPause ? [job.finalPause] : []),
  ];
  const spans = runSpans(job, h);
  const covered = (from: number, to: number) => {
    let reach = from;
    for (const s of [...spans].sort((a, b) => a.lo - b.lo)) {
      if (s.lo > reach) break;
      reach = Math.max(reach, s.hi);
      if (reach >= to) return true;
    }
    return reach >= to;
  };
  return stops.some(
    (p) =>
      p.t1 + SLACK_MS > t &&
      covered(t, Math.max(t, p.t0 - SLACK_MS)) &&
      !job.runs.some(
        (r) => r.scheduledAt && r.scheduledAt.getTime() > t && r.startedAt.getTime() < p.t0 - SLACK_MS,
      ),
  );
}

/**
 * When a run of the job may have held a buffered start back: from its start to its close, give or take
 * the slack, and past a server fault the close falls in (the scheduler learns of the close once it runs).
 */
function runSpans(job: JobLife, h: History): { lo: number; hi: number }[] {
  return job.runs.map((r) => {
    const closed = r.closedAt?.getTime() ?? Infinity;
    let hi = closed + SLACK_MS;
    for (const f of h.faults)
      if (isServerFault(f) && f.t0 <= hi && f.t1 + CATCH_UP_MS >= closed)
        hi = Math.max(hi, f.t1 + CATCH_UP_MS);
    return { lo: r.startedAt.getTime() - SLACK_MS, hi };
  });
}

/** The shortest catch-up window the job can have had: that of any grace a create or modify set. */
function catchUpWindow(job: JobLife): number {
  return Math.min(
    ...job.edits.map((e) => (e.graceMs === null ? DEFAULT_CATCHUP_MS : Math.max(MIN_CATCHUP_MS, e.graceMs))),
  );
}

/**
 * Which of Temporal's counted skips could stand for a missing time T of the job's own trigger, judged per
 * time from what Temporal's scheduler workflow does (service/worker/scheduler/workflow.go, 1.32):
 * it processes its times in order (processTimeRange, from its last processed time to the workflow's now
 * at a wake), so T was processed no later than any later time of its own trigger that started a run, and
 * that run started after it was processed (the start follows addStart). A catch-up skip needs T processed
 * more than the catch-up window after it (`end.Sub(next.Next) > catchupWindow`), so only when the first
 * run of a later time started more than the window after T (or none did). An overlap skip (ProcessBuffer,
 * with the running workflows refreshed just before) or a start still buffered needs a run of the job open
 * at some instant from T to then, or a time just before T that has no run either (one wake's batch). A
 * later time within a trigger call's window
 * is left out: its run may be the trigger's, whose time the frontend stamps (TriggerImmediatelyTimestamp).
 * A full buffer's drop (1,000 starts) may stand for either.
 */
function skipKinds(
  job: JobLife,
  times: Map<number, State>,
  backfilled: (t: number) => boolean,
  causes: Cause[],
): (t: number) => { overlap: boolean; catchUp: boolean; next?: number } {
  const window = catchUpWindow(job);
  // The scheduler reads its runs' state just before it decides (addStart sets NeedRefresh, processBuffer
  // refreshes first, retrying until the server answers), at or after the workflow's now: a run closed
  // before T is seen closed, whatever fault came between (a second more for the clocks). A run that held
  // T back started before T was processed, so before the later run that bounds it, which is not one.
  const spans = job.runs.map((r) => ({
    lo: r.startedAt.getTime(),
    hi: (r.closedAt?.getTime() ?? Infinity) + 1_000,
  }));
  const later = job.runs
    .filter((r) => {
      const s = r.scheduledAt?.getTime();
      return s !== undefined && times.has(s) && !backfilled(s) && !causes.some((c) => c.lo <= s && s <= c.hi);
    })
    .map((r) => ({ t: r.scheduledAt!.getTime(), started: r.startedAt.getTime() }));
  // ProcessBuffer starts one non-overlapping start a wake: under SKIP, the other times a late wake took
  // together with it are counted as overlap skips even when that one's start then fails and is dropped
  // (seed 5183: 02:57:30 and :36 taken at one wake after PostgreSQL was back, :30's start failed until its
  // window ended, :36 counted as an overlap skip). So a time right after a time that has no run either,
  // within the catch-up window, may be an overlap skip with no run open.
  const own = [...times]
    .filter(([x, st]) => st !== 'inactive' && !backfilled(x))
    .map(([x]) => x)
    .sort((a, b) => a - b);
  const ran = new Set(job.runs.map((r) => r.scheduledAt?.getTime()));
  const afterMissing = (t: number) => {
    const prev = own.filter((x) => x < t).pop();
    return prev !== undefined && !ran.has(prev) && t - prev <= window;
  };
  return (t) => {
    const starts = later.filter((x) => x.t > t).map((x) => x.started);
    const next = starts.length > 0 ? Math.min(...starts) : undefined;
    const by = next ?? Infinity;
    return {
      overlap: spans.some((s) => s.lo < by && s.hi >= t) || afterMissing(t),
      catchUp: by - t > window - 1_000,
      ...(next === undefined ? {} : { next }),
    };
  };
}

/**
 * The counters by kind against the missing times each kind can stand for (skipKinds): a time with no run
 * in flight can only be a catch-up skip, one processed within its window only an overlap skip or a start
 * still buffered; a full buffer's drop either. The total (M <= S + B) is checked apart.
 */
function byKind(
  job: JobLife,
  judged: { t: number; overlap: boolean; catchUp: boolean }[],
  c: NonNullable<JobLife['counters']>,
  when: string,
  v: Violation[],
): void {
  const overlapOnly = judged.filter((x) => x.overlap && !x.catchUp).map((x) => x.t);
  const catchUpOnly = judged.filter((x) => !x.overlap && x.catchUp).map((x) => x.t);
  const O = c.skippedOverlap + c.buffered;
  const C = c.missedCatchupWindow;
  const D = c.bufferDropped;
  if (catchUpOnly.length > C + D)
    v.push({
      invariant: 'I1c',
      detail: `job ${job.id}: ${catchUpOnly.length} nominal times had no run and no run of the job in flight from each to the start of a later time's run, so only a catch-up skip can stand for them, but Temporal counted ${C} catch-up skips ${when} (+${D} dropped from a full buffer; overlap ${c.skippedOverlap}, buffered ${c.buffered} cannot): ${catchUpOnly.map(iso).join(', ')} (${describeCalls(job)})`,
    });
  else if (overlapOnly.length > O + D)
    v.push({
      invariant: 'I1c',
      detail: `job ${job.id}: ${overlapOnly.length} nominal times had no run, and a later time's run started within the catch-up window of each, so only an overlap skip or a buffered start can stand for them, but Temporal counted ${c.skippedOverlap} overlap skips and ${c.buffered} buffered ${when} (+${D} dropped from a full buffer; catch-up ${C} cannot): ${overlapOnly.map(iso).join(', ')} (${describeCalls(job)})`,
    });
  else if (overlapOnly.length + catchUpOnly.length > O + C + D)
    v.push({
      invariant: 'I1c',
      detail: `job ${job.id}: ${overlapOnly.length} times only an overlap skip and ${catchUpOnly.length} only a catch-up skip can stand for, more than Temporal counted ${when} (${c.skippedOverlap} overlap, ${c.buffered} buffered, ${C} catch-up, ${D} dropped): ${[...overlapOnly, ...catchUpOnly].map(iso).join(', ')} (${describeCalls(job)})`,
    });
}

/** What a call-by-call setting may be at `start`: the last one settled before it, and those in flight. */
function possibleAt<T>(edits: (Call & { v: T })[], start: number): T[] {
  const sent = edits.filter((g) => g.t0 <= start);
  const settled = sent.filter((g) => g.ok && g.t1 + SLACK_MS < start).pop();
  return sent.filter((g) => g === settled || g.t1 + SLACK_MS >= (settled?.t0 ?? -Infinity)).map((g) => g.v);
}

/** I1d: skip reasons, against the graces a run may have started with. */
function checkSkips(job: JobLife, v: Violation[], tally: Tally, queueing: boolean): void {
  const graceEdits = job.edits.map((e) => ({ ...e, v: e.graceMs }));
  for (const r of job.runs) {
    if (!r.scheduledAt) continue;
    const occ = occurrenceOf(r);
    const graces = possibleAt(graceEdits, r.startedAt.getTime());
    const set = graces.filter((g): g is number => g !== null);
    if (r.status === 'skipped') {
      tally.check('I1d');
      const late = (r.closedAt?.getTime() ?? Infinity) - occ;
      if (r.skipReason === 'misfire' && !set.some((g) => late >= g - 1_000))
        v.push({
          invariant: 'I1d',
          detail: `job ${job.id}: run ${r.workflowId} skipped as misfire, closed ${late} ms after its occurrence (graces it may have had: ${graces.join('/') || 'none'})`,
        });
      if (r.skipReason === 'max-instances' && job.spec.maxInstances < 2)
        v.push({
          invariant: 'I1d',
          detail: `job ${job.id}: run ${r.workflowId} skipped as max-instances with maxInstances 1`,
        });
      if (r.skipReason === 'dst' || !r.skipReason)
        v.push({
          invariant: 'I1d',
          detail: `job ${job.id}: run ${r.workflowId} skipped with reason ${r.skipReason ?? 'none'}`,
        });
    } else if (!queueing && set.length > 0 && set.length === graces.length) {
      // A run of a job that does not queue, started past every grace it may have had, must skip.
      tally.check('I1d');
      if (r.startedAt.getTime() - occ > Math.max(...set) + 1_000)
        v.push({
          invariant: 'I1d',
          detail: `job ${job.id}: run ${r.workflowId} started ${r.startedAt.getTime() - occ} ms after its occurrence, past every grace it may have had (${set.join('/')} ms), and ran (${r.status})`,
        });
    }
  }
}

/**
 * I7: no lost edit. A run's first step works the `ms` of the run's args, which the create set and each
 * modify call replaced: a run the scheduler took after a modify was answered (and no other edit in flight)
 * works the modified `ms`, never an older one.
 */
function checkEdits(job: JobLife, h: History, v: Violation[], tally: Tally): void {
  const workEdits = job.edits.map((e) => ({ ...e, v: e.workMs }));
  for (const r of job.runs) {
    const first = h.steps.find(
      (s) =>
        s.wf === r.workflowId &&
        s.run === r.runId &&
        s.ev === 'start' &&
        s.step === 'a' &&
        s.ms !== undefined,
    );
    if (!first) continue;
    // Temporal's scheduler builds the start request (the args) when it takes the action, at the nominal
    // time or when a buffered start is released, and retries that same request until the run starts: the
    // args may be those of any edit in force from then (no earlier than the create) to the start.
    const start = r.startedAt.getTime();
    const taken = Math.min(start, Math.max(r.scheduledAt?.getTime() ?? start, job.create.t0));
    const between = workEdits.filter((e) => e.t0 <= start && e.t1 + SLACK_MS >= taken - SLACK_MS);
    const possible = [
      ...new Set([
        ...possibleAt(workEdits, taken - SLACK_MS),
        ...between.map((e) => e.v),
        ...possibleAt(workEdits, start),
      ]),
    ];
    if (possible.length === 0) continue;
    tally.check('I7', new Set(possible).size === 1 ? 'certain' : 'ambiguous');
    if (!possible.includes(first.ms!))
      v.push({
        invariant: 'I7',
        detail: `job ${job.id}: run ${r.workflowId} (started ${iso(r.startedAt.getTime())}) worked ${first.ms} ms, but the edits it may have started under set ${possible.join('/')} ms (an edit lost)`,
      });
  }
}

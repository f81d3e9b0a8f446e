/*
 * The checker's model and invariants. The model is computed from what was asked (the calls, with the
 * instants each was sent and answered) and from the project's own preview of a trigger (the nominal
 * times, src/schedule/preview.ts); the observations are the steps' own log, visibility, the dead-letter
 * queue and the alerts the receiver got. Each invariant, exactly:
 *
 * I0 a complete history: every job run the steps' log shows is listed by visibility (read back for up to
 *    READ_BACK_MS); else nothing else is checked, the run fails with that one finding.
 * I1 one outcome per nominal time. For each job, the model lists the nominal times of its trigger and of
 *    its backfill windows, each either CERTAIN (the job was surely active then: live (after its schedule's
 *    own `createdAt`, when Temporal's schedule workflow first ran, which a loaded server can put seconds
 *    after the create call returned, taken to its whole second as Temporal does; times before it are
 *    never processed nor counted), not paused, not
 *    removed, with no state call of the job in flight within SLACK_MS of it) or AMBIGUOUS (a call that
 *    could change it was in flight, or failed, or a trigger call ran in the same second). Then:
 *    (a) no nominal time has two runs (but for one per trigger call sent within a second of it);
 *    (b) no run exists for a time the job was surely inactive (before
 *    its creation, while surely paused, after its removal) or for an instant the model has no cause for
 *    (not a nominal time, a backfilled time, a trigger call's window or a one-off's past-due start);
 *    (c) Temporal's own skips (overlap and catch-up window, counted by the schedule) account for the
 *    missing outcomes: with M the CERTAIN times without a run, U the AMBIGUOUS ones without a run plus the
 *    trigger calls without a run, S the schedule's skip counters (overlap, catch-up window, a full
 *    buffer) and B the runs it still held back
 *    (buffered) when the job was removed: M <= S + B and S <= M + U. A missing time of a queueing job
 *    (coalesce false, BUFFER_ALL) is not in M when a pause or removal was sent after it and no run of a
 *    later time started before that call: Temporal drops the runs a paused schedule holds back, uncounted
 *    (reported as a figure). Checked for jobs still there at the
 *    end (their counters are read after a final pause); for jobs removed by an operation, (a) and (b) only,
 *    as for a job found gone when its counters were read, which must have had a remove sent before.
 *    (d) a run that skipped itself names a reason that holds, judged against the graces it may have
 *    started with (the one the last modify answered before it started set, and those of calls in flight):
 *    `misfire` only when one of them is set and the run closed at least that grace (less 1 s) after its
 *    occurrence (`standsFor`, else its nominal time); `max-instances` only with maxInstances > 1; `dst`
 *    never (the jobs are UTC); and a run of a job that does not queue (coalesce, or maxInstances > 1)
 *    that Temporal started more than every grace it may have had (plus 1 s) after its occurrence must skip.
 * I2 no completed step ran again: in one run (workflow id and run id), once a later step has started or
 *    the run has closed, an earlier step never starts again; a redrive never runs the steps before the
 *    step it was redriven from.
 * I3 never more runs at once than a policy allows: with each run's span from its first step start to its
 *    last step end (a SIGKILLed worker's unfinished attempt ends at the kill), at no instant more spans of
 *    one job overlap than its maxInstances, nor more spans of one concurrency key than its maxConcurrent.
 * I4 no run waits forever, nor a client call: every call ends (answered, or failed) by its gRPC deadline
 *    (CALL_DEADLINE_MS); once the plan is done, the faults over, workers up and every job removed, every
 *    pipeline run of the task queue closes within QUIESCE_MS; and no run fails that nothing made fail
 *    (only the flaky pipeline's refused charge and nothing else fails in the plan).
 * I5 dead letters and redrive: each failed flaky run has exactly one letter unless a redrive of it
 *    completed, which removes it; every redrive (its charge fixed first) completes.
 * I6 every alert fired once per cause, none without one: a run skipped for misfire or max-instances of a
 *    job with onMissed gets exactly one `missed` alert with that reason; a run of a job with onLate that
 *    Temporal started more than lateAfter + 500 ms after its occurrence gets exactly one `late` alert, and
 *    one whose first step started less than lateAfter - 200 ms after it gets none; no `missed` or `late`
 *    alert names a run without such a cause. A second delivery of the same alert counts as once only
 *    within 20 s of a worker SIGKILL (an activity's at-least-once delivery), else it is a violation.
 *    Not covered: onSilent and the server-counted misses, which the watchdog reads after a job's
 *    nominal time and no more often than every 5 minutes.
 */
import { RUN_AT_LEAD_MS } from '../../src/schedule/one-off-due';
import { previewTrigger } from '../../src/schedule/preview';
import type { JobRun } from '../../src/client/runs/run-types';
import type { Trigger } from '../../src/schedule/trigger-types';
import { KEY_MAX, STEP_ORDER, type StepRecord } from './pipelines';
import { QUIESCE_MS, READ_BACK_MS, type Call, type History, type JobLife } from './runner';

/** How far around a call's [sent, answered] the server may still apply it (fire processing, clocks). */
export const SLACK_MS = 2_000;
/** A state call within this long after a server fault may meet fires the restart is still catching up. */
const CATCH_UP_MS = 15_000;

export interface Violation {
  invariant: string;
  detail: string;
}

export interface Figures {
  operations: number;
  operationsFailed: number;
  byKind: Record<string, number>;
  faults: Record<string, number>;
  jobs: number;
  nominalCertain: number;
  nominalAmbiguous: number;
  runs: number;
  stepExecutions: number;
  alerts: number;
  redeliveries: number;
  /** Missing times explained as runs a queueing job held back when it was paused or removed. */
  bufferDropped: number;
  outcomesChecked: number;
  /** Creates left out for want of room (the server refused the oldest job's removal for a minute). */
  createsLeftOut: number;
  /** Jobs paused at rest and then found gone, each after a remove that failed but may have landed. */
  vanishedAtRest: number;
  /** Calls that took the checker's whole deadline (CALL_DEADLINE_MS), and of them those only its timer ended. */
  slowCalls: number;
  hungCalls: number;
}

type State = 'active' | 'inactive' | 'ambiguous';
const iso = (ms: number) => new Date(ms).toISOString();

/** Nominal times of `trigger` in (from, to], from the project's preview. */
function nominalTimes(trigger: Trigger, from: number, to: number): number[] {
  const out: number[] = [];
  let cursor = from;
  for (;;) {
    const p = previewTrigger(trigger, 1000, { from: new Date(cursor) });
    const times = p.fireTimes.map((f) => Date.parse(f.utc)).filter((t) => t > cursor);
    for (const t of times) if (t <= to) out.push(t);
    const last = times[times.length - 1];
    if (last === undefined || last >= to || times.length === 0) return out;
    cursor = last;
  }
}

/** The job's state at each instant, as far as the calls tell. */
function stateOf(job: JobLife, h: History): (t: number) => State {
  type Window = { lo: number; hi: number; effect: 'active' | 'inactive' | 'unknown'; removes: boolean };
  const widen = (c: Call) => {
    let lo = c.t0 - SLACK_MS;
    for (const f of h.faults)
      if (f.kind !== 'worker-kill' && f.t1 <= c.t0 && c.t0 - f.t1 < CATCH_UP_MS) lo = Math.min(lo, f.t0);
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

function checkJob(job: JobLife, h: History, v: Violation[], fig: Figures): void {
  // Only a remove can make a schedule go: one that vanished at rest had a remove that failed (it may
  // have landed after all) or one that found it gone (I1 (a) and (b) still hold for it).
  if (job.vanishedAtRest && !job.states.some((s) => s.kind === 'remove'))
    v.push({
      invariant: 'I1c',
      detail: `job ${job.id}: paused at rest, then gone with no remove sent (${describeCalls(job)})`,
    });
  const at = stateOf(job, h);
  const end = Math.max(
    ...[job.create, ...job.states, ...(job.finalPause ? [job.finalPause] : [])].map((c) => c.t1),
  );
  const times = new Map<number, State>();
  for (const t of nominalTimes(job.trigger, job.create.t0 - SLACK_MS, end + SLACK_MS)) times.set(t, at(t));
  // A one-off whose second starts within RUN_AT_LEAD_MS of the create call is run by the create itself
  // (a backfill in the schedule's initial patch), whenever the schedule's own first task comes: surely so
  // when it was that close at the answer, maybe when only at the sending (the client's clock read between).
  // Seen: a run for 23:34:52.000 of a one-off created at 23:34:51.040 whose schedule started at 23:35:17.
  if ('runAt' in job.trigger)
    for (const t of times.keys()) {
      if (t - job.create.t0 >= RUN_AT_LEAD_MS) continue;
      const sure = job.create.ok && t - job.create.t1 < RUN_AT_LEAD_MS;
      // Before its schedule's start the job reads as inactive; a state call soon after may still win.
      const stateSoon = job.states.some((c) => c.t0 < job.create.t1 + SLACK_MS + CATCH_UP_MS);
      times.set(t, sure && !stateSoon ? 'active' : 'ambiguous');
    }
  for (const b of job.backfills)
    for (const t of nominalTimes(job.trigger, b.from, b.to)) times.set(t, b.ok ? 'active' : 'ambiguous');
  // A trigger call in the same second as a nominal time may take that time's run id.
  for (const c of job.triggers)
    for (const t of times.keys())
      if (t >= c.t0 - 1_000 && t <= c.t1 + SLACK_MS && times.get(t) === 'active') times.set(t, 'ambiguous');
  const causeWindows: { lo: number; hi: number }[] = job.triggers.map((c) => ({
    lo: c.t0 - 1_000,
    hi: c.t1 + SLACK_MS,
  }));
  if ('runAt' in job.trigger) causeWindows.push({ lo: job.create.t0 - 1_000, hi: job.create.t1 + SLACK_MS });

  const byTime = new Map<number, JobRun[]>();
  for (const r of job.runs) {
    if (!r.scheduledAt) {
      v.push({ invariant: 'I1b', detail: `job ${job.id}: run ${r.workflowId} has no nominal time` });
      continue;
    }
    const t = r.scheduledAt.getTime();
    byTime.set(t, [...(byTime.get(t) ?? []), r]);
  }
  let triggeredRuns = 0;
  for (const [t, runs] of byTime) {
    fig.outcomesChecked++;
    // A trigger call in the same second may start a run with that very nominal time (seen: two runs of
    // 22:38:04.000, one scheduled, one triggered and buffered behind it).
    const triggersHere = job.triggers.filter((c) => t >= c.t0 - 1_000 && t <= c.t1 + SLACK_MS).length;
    if (runs.length > 1) triggeredRuns += Math.min(runs.length - 1, triggersHere);
    if (runs.length > 1 + triggersHere)
      v.push({
        invariant: 'I1a',
        detail: `job ${job.id}: nominal time ${iso(t)} has ${runs.length} runs (${runs.map((r) => r.workflowId).join(', ')})`,
      });
    const state = times.get(t);
    if (state === 'inactive')
      v.push({
        invariant: 'I1b',
        detail: `job ${job.id}: run ${runs[0]!.workflowId} for ${iso(t)}, when the job was surely not active (${describeCalls(job)})`,
      });
    else if (state === undefined) {
      if (causeWindows.some((w) => t >= w.lo && t <= w.hi)) triggeredRuns += runs.length;
      else
        v.push({
          invariant: 'I1b',
          detail: `job ${job.id}: run ${runs[0]!.workflowId} at ${iso(t)}, neither a nominal time, a backfilled time nor a trigger's (${describeCalls(job)})`,
        });
    }
  }
  // Temporal drops the runs a queueing job (BUFFER_ALL) still holds back when it is paused or removed, and
  // counts none of them: a missing time T is such a drop when a pause or removal was sent after T and no
  // run of a later time started before that call (the buffer is first in, first out).
  const queueing = job.spec.maxInstances === 1 && !job.spec.coalesce;
  const stops = [
    ...job.states.filter((s) => s.kind !== 'resume'),
    ...(job.finalPause ? [job.finalPause] : []),
  ];
  const droppedByStop = (t: number) =>
    queueing &&
    stops.some(
      (p) =>
        p.t1 + SLACK_MS > t &&
        !job.runs.some(
          (r) => r.scheduledAt && r.scheduledAt.getTime() > t && r.startedAt.getTime() < p.t0 - SLACK_MS,
        ),
    );
  const missing = [...times].filter(([t, s]) => s === 'active' && !byTime.has(t)).map(([t]) => t);
  const missingCertain = missing.filter((t) => !droppedByStop(t));
  fig.bufferDropped += missing.length - missingCertain.length;
  const missingAmbiguous = [...times].filter(([t, s]) => s === 'ambiguous' && !byTime.has(t)).length;
  fig.nominalCertain += [...times.values()].filter((s) => s === 'active').length;
  fig.nominalAmbiguous += [...times.values()].filter((s) => s === 'ambiguous').length;
  if (job.counters) {
    fig.outcomesChecked += missingCertain.length;
    const S = job.counters.skippedOverlap + job.counters.missedCatchupWindow + job.counters.bufferDropped;
    const B = job.counters.buffered;
    // A time counted as dropped by a pause may instead have been missed by the catch-up window (counted):
    // the scheduler, woken late after an outage, skips it before the pause drops the rest.
    const U =
      missingAmbiguous +
      (missing.length - missingCertain.length) +
      Math.max(0, job.triggers.length - triggeredRuns);
    if (missingCertain.length > S + B)
      v.push({
        invariant: 'I1c',
        detail: `job ${job.id}: ${missingCertain.length} nominal times had no outcome but Temporal counted only ${S} skips (+${B} buffered): ${missingCertain.map(iso).join(', ')} (${describeCalls(job)})`,
      });
    if (S > missingCertain.length + U)
      v.push({
        invariant: 'I1c',
        detail: `job ${job.id}: Temporal counted ${S} skips, more than the ${missingCertain.length} certain and ${U} possible occasions without a run`,
      });
  }

  // I1d: skip reasons, against the graces a run may have started with: the one set by the last call
  // answered before it started, and those of the calls still in flight then (a failed call may have landed).
  const gracesAt = (start: number): (number | null)[] => {
    const sent = job.graces.filter((g) => g.t0 <= start);
    const settled = sent.filter((g) => g.ok && g.t1 + SLACK_MS < start).pop();
    return sent
      .filter((g) => g === settled || g.t1 + SLACK_MS >= (settled?.t0 ?? -Infinity))
      .map((g) => g.ms);
  };
  for (const r of job.runs) {
    if (!r.scheduledAt) continue;
    const occ = occurrenceOf(r);
    const graces = gracesAt(r.startedAt.getTime());
    const set = graces.filter((g): g is number => g !== null);
    if (r.status === 'skipped') {
      fig.outcomesChecked++;
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
    } else if (
      !queueing &&
      set.length > 0 &&
      set.length === graces.length &&
      r.startedAt.getTime() - occ > Math.max(...set) + 1_000
    ) {
      fig.outcomesChecked++;
      v.push({
        invariant: 'I1d',
        detail: `job ${job.id}: run ${r.workflowId} started ${r.startedAt.getTime() - occ} ms after its occurrence, past every grace it may have had (${set.join('/')} ms), and ran (${r.status})`,
      });
    }
  }
}

function describeCalls(job: JobLife): string {
  const rel = (t: number) => `${((t - job.create.t0) / 1000).toFixed(1)}s`;
  const parts = [`created ${iso(job.create.t0)}${job.create.ok ? '' : ' (failed)'}`];
  for (const s of job.states) parts.push(`${s.kind} ${rel(s.t0)}..${rel(s.t1)}${s.ok ? '' : ' (failed)'}`);
  if (job.finalPause) parts.push(`final pause ${rel(job.finalPause.t0)}`);
  return parts.join(', ');
}

/** Which pipeline a workflow id runs (the ids are the checker's own). */
function pipelineOf(wf: string, jobRuns: Set<string>): string | undefined {
  if (jobRuns.has(wf)) return 'ck-job';
  if (wf.endsWith('/kid')) return 'ck-child';
  if (wf.startsWith('ck-key-')) return 'ck-key';
  if (wf.startsWith('ck-parent-')) return 'ck-parent';
  if (wf.startsWith('tflow-dead-letter:ck-flaky-') || wf.startsWith('ck-flaky-')) return 'ck-flaky';
  return undefined;
}

interface Span {
  wf: string;
  lo: number;
  hi: number;
}

/** The most spans open at once, and when. */
function peak(spans: Span[]): { n: number; at: number; wfs: string[] } {
  const events = spans.flatMap((s) => [
    { t: s.lo, d: 1, s },
    { t: s.hi, d: -1, s },
  ]);
  // Ends before starts at the same instant: touching spans do not overlap.
  events.sort((a, b) => a.t - b.t || a.d - b.d);
  const open = new Set<Span>();
  let best = { n: 0, at: 0, wfs: [] as string[] };
  for (const e of events) {
    if (e.d > 0) open.add(e.s);
    else open.delete(e.s);
    if (open.size > best.n) best = { n: open.size, at: e.t, wfs: [...open].map((s) => s.wf) };
  }
  return best;
}

export function checkHistory(h: History): { violations: Violation[]; figures: Figures } {
  const v: Violation[] = [];
  const byKind: Record<string, number> = {};
  for (const c of h.calls) byKind[c.op] = (byKind[c.op] ?? 0) + 1;
  const faults: Record<string, number> = {};
  for (const f of h.faults) faults[f.kind] = (faults[f.kind] ?? 0) + 1;
  const fig: Figures = {
    operations: h.calls.length,
    operationsFailed: h.calls.filter((c) => !c.call.ok).length,
    byKind,
    faults,
    jobs: h.jobs.length,
    nominalCertain: 0,
    nominalAmbiguous: 0,
    runs: h.jobs.reduce((n, j) => n + j.runs.length, 0) + h.direct.filter((d) => d.start.ok).length,
    stepExecutions: h.steps.filter((s) => s.ev === 'start').length,
    alerts: h.alerts.length,
    redeliveries: 0,
    bufferDropped: 0,
    outcomesChecked: 0,
    createsLeftOut: h.createsLeftOut ?? 0,
    vanishedAtRest: h.jobs.filter((j) => j.vanishedAtRest).length,
    slowCalls: h.slowCalls?.length ?? 0,
    hungCalls: h.slowCalls?.filter((c) => c.hung).length ?? 0,
  };

  // An incomplete read-back (visibility never listed runs that ran steps) cannot be checked: every
  // invariant would see the missing runs as missing outcomes. One violation says so instead.
  if (h.unread?.length) {
    v.push({
      invariant: 'I0',
      detail: `read-back incomplete: ${h.unread.length} job runs ran steps but visibility did not list them within ${READ_BACK_MS / 1000} s of rest (e.g. ${h.unread.slice(0, 3).join(', ')}); a server this far behind gives no history to check`,
    });
    return { violations: v, figures: fig };
  }
  for (const job of h.jobs) checkJob(job, h, v, fig);
  // I4 for calls: a client call ends, answered or failed by its gRPC deadline; one that outlived its
  // deadline waited on something that never came.
  for (const c of h.slowCalls ?? [])
    if (c.hung)
      v.push({
        invariant: 'I4',
        detail: `a ${c.op} call sent at ${iso(c.t0)} did not end by its gRPC deadline (${c.ms} ms, ended by the checker's timer)`,
      });

  // I2: steps of one run, in order, never again once passed.
  const jobRunIds = new Set(h.jobs.flatMap((j) => j.runs.map((r) => r.workflowId)));
  const closed = new Map<string, number>();
  for (const j of h.jobs)
    for (const r of j.runs) if (r.closedAt) closed.set(`${r.workflowId}|${r.runId}`, r.closedAt.getTime());
  const byRun = new Map<string, StepRecord[]>();
  for (const s of h.steps) byRun.set(`${s.wf}|${s.run}`, [...(byRun.get(`${s.wf}|${s.run}`) ?? []), s]);
  const directClosed = new Map(h.direct.map((d) => [d.workflowId, d.closedAt]));
  for (const [key, records] of byRun) {
    const wf = records[0]!.wf;
    const order = STEP_ORDER[pipelineOf(wf, jobRunIds) ?? ''];
    if (!order) {
      v.push({ invariant: 'I2', detail: `steps ran in ${wf}, a run the checker did not start` });
      continue;
    }
    const closedAt = closed.get(key) ?? directClosed.get(wf);
    for (const s of records.filter((r) => r.ev === 'start')) {
      fig.outcomesChecked++;
      const later = records.find(
        (r) => r.ev === 'start' && order.indexOf(r.step) > order.indexOf(s.step) && r.at < s.at,
      );
      if (later)
        v.push({
          invariant: 'I2',
          detail: `${wf}: step ${s.step} started again (attempt ${s.attempt}, ${iso(s.at)}) after ${later.step} had started (${iso(later.at)})`,
        });
      if (closedAt !== undefined && s.at > closedAt)
        v.push({
          invariant: 'I2',
          detail: `${wf}: step ${s.step} started at ${iso(s.at)}, after the run closed (${iso(closedAt)})`,
        });
      if (wf.includes('-redrive-') && s.step === 'a')
        v.push({
          invariant: 'I2',
          detail: `${wf}: the redrive ran step a again, before the step it was redriven from`,
        });
    }
  }

  // I3: runs at once, per job and per concurrency key.
  const restEnd = h.restAt + QUIESCE_MS;
  const spanOf = (records: StepRecord[], closedAt: number | undefined): Span => {
    const lo = Math.min(...records.filter((r) => r.ev === 'start').map((r) => r.at));
    let hi = Math.max(...records.filter((r) => r.ev !== 'start').map((r) => r.at), lo);
    // An attempt without an end was cut short by a SIGKILL of its worker; until then it ran.
    for (const s of records.filter((r) => r.ev === 'start')) {
      const ended = records.some(
        (r) => r.ev !== 'start' && r.step === s.step && r.attempt === s.attempt && r.at >= s.at,
      );
      if (!ended) hi = Math.max(hi, h.killedAt.get(s.pid) ?? closedAt ?? restEnd);
    }
    return { wf: records[0]!.wf, lo, hi };
  };
  for (const job of h.jobs) {
    const spans = job.runs
      .map((r) => ({ r, records: byRun.get(`${r.workflowId}|${r.runId}`) }))
      .filter((x) => x.records?.some((s) => s.ev === 'start'))
      .map((x) => spanOf(x.records!, x.r.closedAt?.getTime()));
    fig.outcomesChecked++;
    const p = peak(spans);
    if (p.n > job.spec.maxInstances)
      v.push({
        invariant: 'I3',
        detail: `job ${job.id} (maxInstances ${job.spec.maxInstances}): ${p.n} runs at once at ${iso(p.at)}: ${p.wfs.join(', ')}`,
      });
  }
  const keys = new Set(h.direct.filter((d) => d.key).map((d) => d.key!));
  for (const key of keys) {
    const spans = h.direct
      .filter((d) => d.key === key)
      .flatMap((d) =>
        [...byRun.entries()]
          .filter(([k]) => k.startsWith(`${d.workflowId}|`))
          .map(([, r]) => spanOf(r, d.closedAt)),
      );
    fig.outcomesChecked++;
    const p = peak(spans);
    if (p.n > KEY_MAX)
      v.push({
        invariant: 'I3',
        detail: `key ${key} (maxConcurrent ${KEY_MAX}): ${p.n} runs at once at ${iso(p.at)}: ${p.wfs.join(', ')}`,
      });
  }

  // I4: nothing waits forever; nothing fails without a cause.
  for (const r of h.stillRunning)
    v.push({
      invariant: 'I4',
      detail: `${r.workflowId} (started ${iso(r.startedAt)}) still running ${QUIESCE_MS / 1000} s after the system came to rest`,
    });
  for (const job of h.jobs)
    for (const r of job.runs) {
      fig.outcomesChecked++;
      if (!['completed', 'skipped', 'running'].includes(r.status))
        v.push({
          invariant: 'I4',
          detail: `job ${job.id}: run ${r.workflowId} ${r.status}, though nothing made it fail${r.failure ? `: ${r.failure}` : ''}`,
        });
    }
  for (const d of h.direct) {
    if (!d.start.ok || d.kind === 'flaky') continue;
    fig.outcomesChecked++;
    if (d.status !== 'COMPLETED' && d.status !== 'RUNNING')
      v.push({
        invariant: d.kind === 'redrive' ? 'I5' : 'I4',
        detail: `${d.kind} run ${d.workflowId} ended ${d.status}, though nothing made it fail`,
      });
  }

  // I5: dead letters.
  const letters = new Map(h.letters.map((l) => [l.workflowId, l]));
  for (const d of h.direct.filter((x) => x.kind === 'flaky' && x.start.ok)) {
    fig.outcomesChecked++;
    if (d.status !== 'FAILED') {
      v.push({
        invariant: 'I5',
        detail: `flaky run ${d.workflowId} ended ${d.status}, not FAILED at its refused charge`,
      });
      continue;
    }
    const redriven = h.direct.some(
      (r) => r.kind === 'redrive' && r.letter === d.workflowId && r.status === 'COMPLETED',
    );
    const letter = letters.get(d.workflowId);
    if (redriven && letter)
      v.push({ invariant: 'I5', detail: `letter ${d.workflowId} still queued after its redrive completed` });
    if (!redriven && !letter)
      v.push({ invariant: 'I5', detail: `failed run ${d.workflowId} has no dead letter` });
    letters.delete(d.workflowId);
  }
  for (const l of letters.values())
    v.push({ invariant: 'I5', detail: `letter ${l.workflowId} for a run the checker did not fail` });

  // I6: alerts.
  const jobOfRun = new Map<string, { job: JobLife; run: JobRun }>();
  for (const job of h.jobs)
    for (const run of job.runs) jobOfRun.set(`${run.workflowId}|${run.runId}`, { job, run });
  const seen = new Map<string, number>();
  const kills = h.faults.filter((f) => f.kind === 'worker-kill').map((f) => f.t0);
  for (const d of h.alerts) {
    const e = d.event;
    const id = `${e.kind}|${e.workflowId}|${e.runId}|${e.reason ?? ''}`;
    const prior = seen.get(id);
    if (prior !== undefined) {
      if (kills.some((k) => Math.abs(k - prior) < 20_000)) fig.redeliveries++;
      else
        v.push({
          invariant: 'I6',
          detail: `alert ${e.kind} for ${e.workflowId} delivered twice with no worker killed near it`,
        });
      continue;
    }
    seen.set(id, d.at);
    const cause = jobOfRun.get(`${e.workflowId}|${e.runId}`);
    if (e.kind === 'missed' && (e.reason === 'misfire' || e.reason === 'max-instances')) {
      if (!cause?.job.spec.onMissed || cause.run.status !== 'skipped' || cause.run.skipReason !== e.reason)
        v.push({
          invariant: 'I6',
          detail: `missed alert (${e.reason}) for ${e.workflowId}, which did not skip for that reason (${cause?.run.status ?? 'unknown run'})`,
        });
    } else if (e.kind === 'late') {
      if (!cause?.job.spec.onLate)
        v.push({ invariant: 'I6', detail: `late alert for ${e.workflowId}, whose job has no onLate` });
    } else
      v.push({ invariant: 'I6', detail: `unexpected alert ${e.kind} (${e.reason ?? ''}) for ${e.jobId}` });
  }
  const LATE_AFTER = 2_000;
  for (const { job, run } of jobOfRun.values()) {
    if (!run.scheduledAt) continue;
    const key = (kind: string, reason = '') => `${kind}|${run.workflowId}|${run.runId}|${reason}`;
    if (
      job.spec.onMissed &&
      run.status === 'skipped' &&
      (run.skipReason === 'misfire' || run.skipReason === 'max-instances')
    ) {
      fig.outcomesChecked++;
      if (!seen.has(key('missed', run.skipReason)))
        v.push({
          invariant: 'I6',
          detail: `run ${run.workflowId} skipped (${run.skipReason}) but no missed alert arrived`,
        });
    }
    if (!job.spec.onLate || run.status === 'skipped') continue;
    const occ = occurrenceOf(run);
    const lower = run.startedAt.getTime() - occ;
    const first = h.steps.find((s) => s.wf === run.workflowId && s.run === run.runId && s.ev === 'start');
    const upper = first ? first.at - occ : Infinity;
    const alerted = seen.has(key('late'));
    fig.outcomesChecked++;
    if (lower > LATE_AFTER + 500 && !alerted && first)
      v.push({
        invariant: 'I6',
        detail: `run ${run.workflowId} started ${lower} ms after its occurrence (lateAfter 2 s) but no late alert arrived`,
      });
    if (upper < LATE_AFTER - 200 && alerted)
      v.push({
        invariant: 'I6',
        detail: `late alert for ${run.workflowId}, whose first step started ${upper} ms after its occurrence (lateAfter 2 s)`,
      });
  }
  return { violations: v, figures: fig };
}

/** The report: figures, then every violation, with the seed and how to replay it. */
export function report(h: History, r: { violations: Violation[]; figures: Figures }, replay: string): string {
  const f = r.figures;
  const lines = [
    `model-based checker: seed ${h.seed}, ${Math.round(h.durationMs / 1000)} s of operations`,
    `  operations: ${f.operations} (${f.operationsFailed} failed: refused or met a fault) ${JSON.stringify(f.byKind)}`,
    `  faults: ${JSON.stringify(f.faults)}`,
    `  jobs: ${f.jobs}; nominal times: ${f.nominalCertain} certain, ${f.nominalAmbiguous} ambiguous; runs: ${f.runs}; step executions: ${f.stepExecutions}`,
    `  queued runs dropped by a pause or removal (Temporal counts none): ${f.bufferDropped}`,
    `  creates left out for want of room: ${f.createsLeftOut}; jobs found gone at rest after a failed remove: ${f.vanishedAtRest}`,
    `  calls that took the whole deadline: ${f.slowCalls} (${f.hungCalls} ended only by the timer, past the gRPC deadline)`,
    `  alerts received: ${f.alerts} (${f.redeliveries} redelivered after a worker kill)`,
    `  outcomes checked: ${f.outcomesChecked}; violations: ${r.violations.length}`,
  ];
  for (const x of r.violations) lines.push(`  VIOLATION ${x.invariant}: ${x.detail}`);
  if (r.violations.length) lines.push(`  replay: ${replay}`);
  return lines.join('\n');
}

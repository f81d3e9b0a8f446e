/*
 * The checker's invariants. The model is computed from what was asked (the calls, with the instants each
 * was sent and answered) and from the checker's own model of the nominal times (nominal-times.ts, written
 * apart from src/schedule); the observations are the steps' own log, visibility, the dead-letter queue and
 * the alerts the receiver got. Each invariant, exactly (I1 and I7 in job-invariants.ts, I6 in
 * alert-invariants.ts, the rest here):
 *
 * I0 a complete history: every job run the steps' log shows is listed by visibility (read back for up to
 *    READ_BACK_MS); else nothing else is checked, the run fails with that one finding.
 * I1 one outcome per nominal time. For each job, the model lists the nominal times of its trigger and of
 *    its backfill windows, each either CERTAIN (the job was surely active then: live (after its schedule's
 *    own `createdAt`, when Temporal's schedule workflow first ran, which a loaded server can put seconds
 *    after the create call returned, taken to its whole second as Temporal does; times before it are
 *    never processed nor counted), not paused, not removed, with no state call of the job in flight within
 *    SLACK_MS of it) or AMBIGUOUS (a call that could change it was in flight, or failed). Then:
 *    (a) each nominal time has at most one run, besides runs each matched to a distinct trigger call (or a
 *    one-off's create) whose window [sent - 1 s, answered + SLACK_MS] holds that run's second: one call
 *    accounts for one run at most;
 *    (b) no run exists for a time the job was surely inactive (before its creation, while surely paused,
 *    after its removal) or for an instant the model has no cause for (not a nominal time, a backfilled
 *    time), unless matched to a call as in (a);
 *    (c) Temporal's own skips (overlap and catch-up window, counted by the schedule) account for the
 *    missing outcomes: with M the CERTAIN times without a run, U the AMBIGUOUS ones without a run plus the
 *    trigger calls without a run, S the schedule's skip counters (overlap, catch-up window, a full
 *    buffer) and B the runs it still held back (buffered) when the job was removed: M <= S + B and
 *    S <= M + U. A missing time T of a queueing job (coalesce false, BUFFER_ALL) is not in M (it is in U)
 *    when runs of the job were in flight without a break from T until a pause or removal was sent, and no
 *    run of a later time started before that call: Temporal drops, uncounted, the starts a paused schedule
 *    holds back. A backfilled time is neither (the backfill passes BUFFER_ALL, or ALLOW_ALL for a job
 *    that allows overlap, and Temporal starts its times as manual starts, which no pause, catch-up window
 *    or overlap skips): with Mb the CERTAIN backfilled times without a run and D the full buffer's drops,
 *    Mb <= B + D. Per time too, counters or not: Temporal's scheduler processes its times in order, so a
 *    missing time T of the job's own trigger was processed by the start of the first run of a later time
 *    of it (one no trigger call can account for); it can be an overlap skip or a buffered start only if a
 *    run of the job was open at some instant from T to then, and a catch-up skip only if that start came
 *    more than the catch-up window (max(10 s, grace), a year without a grace) after T. A time neither can
 *    stand for is a violation on its own; with the counters, the times only an overlap skip (or B) can
 *    stand for must not exceed those counts, nor those only a catch-up skip can its count (a full
 *    buffer's drops may stand for either). Checked for jobs still there at the end (their counters are
 *    read after a final pause); for a job the runner removes (to make room, a `remove` of the plan with
 *    the client or the CLI, or an `apply --prune`), M <= S + B and the kinds on the times before the
 *    counters were read, just before its first remove, and before the first time the schedule had not
 *    processed then (its next action time; a one-off with none has processed its time), and S <= M + U
 *    on the times up to that remove. Not for one found gone when its counters were read, which must
 *    have had a remove sent before.
 *    (d) a run that skipped itself names a reason that holds, judged against the graces it may have
 *    started with (the one the last modify answered before it started set, and those of calls in flight):
 *    `misfire` only when one of them is set and the run closed at least that grace (less 1 s) after its
 *    occurrence (`standsFor`, else its nominal time); `max-instances` only with maxInstances > 1; `dst`
 *    never (no live run of the plan meets a clock change, and a backfill with a DST policy leaves out the
 *    times the policy does not run, docs/scheduling.md); and a run of a job that does not queue (coalesce, or
 *    maxInstances > 1) that Temporal started more than every grace it may have had (plus 1 s) after its
 *    occurrence must skip.
 * I2 no completed step ran again: in one run (workflow id and run id), once a later step has started or
 *    the run has closed, an earlier step never starts again; a redrive never runs the steps before the
 *    step it was redriven from.
 * I3 never more runs at once than a policy allows: with each run's span from its first step start to its
 *    last step end (a SIGKILLed worker's unfinished attempt ends at the kill), at no instant more spans of
 *    one job overlap than its maxInstances, nor more spans of one concurrency key than its maxConcurrent.
 * I4 no run waits forever, nor a client call: every call ends (answered, or failed) by its gRPC deadline
 *    (CALL_DEADLINE_MS); once the plan is done, the faults over, workers up and every job removed, every
 *    pipeline run of the task queue closes within QUIESCE_MS (a parent whose `waitFor` is never served
 *    stays open); and no run fails that nothing made fail (only the flaky pipeline's refused charge and
 *    nothing else fails in the plan).
 * I5 dead letters and redrive: each failed flaky run has exactly one letter unless a redrive of it
 *    completed, which removes it; every redrive (its charge fixed first) completes.
 * I6 every alert fired once per cause, none without one: a run skipped for misfire or max-instances of a
 *    job with onMissed gets exactly one `missed` alert with that reason; a run of a job with onLate that
 *    Temporal started more than lateAfter + 500 ms after its occurrence gets exactly one `late` alert, and
 *    one whose first step started less than lateAfter - 200 ms after it gets none; no `missed` or `late`
 *    alert names a run without such a cause. A job with expectSuccessWithin E gets a `silent` alert for
 *    each stretch longer than E (+ WATCHDOG_MARGIN_MS) with no completed run, unless a server or watchdog
 *    fault held it back, never one within E of a completed run or once its schedule is surely gone, and
 *    a `recovered` alert after it once a run completes (checkSilence states it exactly). Server-counted
 *    misses (overlap, catch-up window) are bounded by the schedule's counter, never required (the
 *    watchdog reads the counts no more often than every 5 minutes). An occurrence the server never
 *    started (no run, its start dropped after the catch-up window, uncounted) gets a `missed` alert (any
 *    reason: `not-started` naming it, or a count) by the time + the window + 60 s, where the evaluator
 *    promises one (a job with onMissed and a grace that does not queue, a time surely among the 10 its
 *    first read listed, no call of the job and no alert worker kill until then; checkNotStarted states it
 *    exactly); a `not-started` alert names only times of the job not surely inactive with no run started
 *    before it, and is that time's outcome for I1c. A second delivery of one cause counts
 *    as once only within 20 s of a worker or watchdog SIGKILL (an activity's at-least-once delivery),
 *    else it is a violation.
 * I7 no lost edit: a job run's first step works the `ms` of the args the last create or modify answered
 *    before the run started set (or of a call still in flight then).
 *
 * The figures (tally.ts) count an outcome only where one of these checks could fire on it, and every case
 * a carve-out excused, by its reason.
 */
import type { History } from './history';
import { QUIESCE_MS, READ_BACK_MS } from './history';
import { checkAlerts } from './alert-invariants';
import { checkJob, iso } from './job-invariants';
import { KEY_MAX, STEP_ORDER, type StepRecord } from './pipelines';
import { Tally, type CheckResult, type Figures, type Violation } from './tally';

export { report } from './tally';

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

export function checkHistory(h: History): CheckResult {
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
    runs: h.jobs.reduce((n, j) => n + j.runs.length, 0) + h.direct.filter((d) => d.start.ok).length,
    stepExecutions: h.steps.filter((s) => s.ev === 'start').length,
    alerts: h.alerts.length,
    createsLeftOut: h.createsLeftOut ?? 0,
    vanishedAtRest: h.jobs.filter((j) => j.vanishedAtRest).length,
    slowCalls: h.slowCalls?.length ?? 0,
    hungCalls: h.slowCalls?.filter((c) => c.hung).length ?? 0,
    modelFindings: [],
    tally: new Tally(),
  };
  const { tally } = fig;

  // An incomplete read-back (visibility never listed runs that ran steps) cannot be checked: every
  // invariant would see the missing runs as missing outcomes. One violation says so instead.
  tally.check('I0');
  if (h.unread?.length) {
    v.push({
      invariant: 'I0',
      detail: `read-back incomplete: ${h.unread.length} job runs ran steps but visibility did not list them within ${READ_BACK_MS / 1000} s of rest (e.g. ${h.unread.slice(0, 3).join(', ')}); a server this far behind gives no history to check`,
    });
    return { violations: v, figures: fig };
  }
  for (const job of h.jobs) checkJob(job, h, v, tally, fig.modelFindings);
  // I4 for calls: a client call ends, answered or failed by its gRPC deadline; one that outlived its
  // deadline waited on something that never came.
  tally.check('I4', 'certain', h.calls.length);
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
      // A step start can break the order only in a pipeline of several steps, the close only once known.
      if (order.length > 1 || closedAt !== undefined || wf.includes('-redrive-')) tally.check('I2');
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
    // A step that completed never starts again in that run. Temporal runs an activity at least once: an
    // attempt that timed out (a heartbeat missed on a loaded machine), or whose worker or server died, is
    // retried as the next attempt even if it went on to end (its completion then comes too late, or never,
    // and the server has already scheduled the retry). Only the server numbers attempts, so a later start
    // of a higher attempt is such a retry; a start of the same or a lower attempt after the end is a second
    // execution the server never asked for (the seeded bug of docs/testing.md that ran every step twice
    // started both as attempt 1, and the order check above did not see it).
    for (const e of records.filter((r) => r.ev === 'end')) {
      tally.check('I2');
      const again = records.find((r) => r.ev === 'start' && r.step === e.step && r.at > e.at);
      if (!again) continue;
      if (again.attempt > e.attempt)
        tally.excuse(
          'a step started again as a later attempt after an end the server did not record (at least once)',
        );
      else
        v.push({
          invariant: 'I2',
          detail: `${wf}: step ${e.step} started again (attempt ${again.attempt}, ${iso(again.at)}) after it completed (attempt ${e.attempt}, ${iso(e.at)})`,
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
    // Only a job with more runs than it allows at once can break it.
    if (spans.length > job.spec.maxInstances) tally.check('I3');
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
    if (spans.length > KEY_MAX) tally.check('I3');
    const p = peak(spans);
    if (p.n > KEY_MAX)
      v.push({
        invariant: 'I3',
        detail: `key ${key} (maxConcurrent ${KEY_MAX}): ${p.n} runs at once at ${iso(p.at)}: ${p.wfs.join(', ')}`,
      });
  }

  // I4: nothing waits forever; nothing fails without a cause.
  const why = (wf: string) => (h.failures?.[wf] ? ` (its history: ${h.failures[wf]})` : '');
  tally.check('I4', 'certain', h.direct.filter((d) => d.start.ok).length);
  for (const r of h.stillRunning)
    v.push({
      invariant: 'I4',
      detail: `${r.workflowId} (started ${iso(r.startedAt)}) still running ${QUIESCE_MS / 1000} s after the system came to rest`,
    });
  for (const job of h.jobs)
    for (const r of job.runs) {
      tally.check('I4');
      if (!['completed', 'skipped', 'running'].includes(r.status))
        v.push({
          invariant: 'I4',
          detail: `job ${job.id}: run ${r.workflowId} ${r.status}, though nothing made it fail${r.failure ? `: ${r.failure}` : ''}${why(r.workflowId)}`,
        });
    }
  for (const d of h.direct) {
    if (!d.start.ok || d.kind === 'flaky') continue;
    if (d.status !== 'COMPLETED' && d.status !== 'RUNNING')
      v.push({
        invariant: d.kind === 'redrive' ? 'I5' : 'I4',
        detail: `${d.kind} run ${d.workflowId} ended ${d.status}, though nothing made it fail${why(d.workflowId)}`,
      });
  }

  // I5: dead letters.
  const letters = new Map(h.letters.map((l) => [l.workflowId, l]));
  for (const d of h.direct.filter((x) => x.kind === 'flaky' && x.start.ok)) {
    tally.check('I5');
    // Slow to reach its charge (its workers restarting on a loaded machine), a run the runner fixed before
    // its charge first started completes: what the runner asked, no dead letter due.
    const charged = h.steps.find((x) => x.wf === d.workflowId && x.step === 'charge' && x.ev === 'start');
    if (d.status === 'COMPLETED' && d.fixedAt !== undefined && (!charged || charged.at > d.fixedAt)) {
      tally.excuse('flaky run fixed before its charge started (the runner waits 120 s for it to fail)');
      continue;
    }
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

  checkAlerts(h, v, tally);
  return { violations: v, figures: fig };
}

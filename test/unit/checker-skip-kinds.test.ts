import { describe, expect, it } from 'vitest';
import { checkHistory } from '../checker/invariants';
import type { History } from '../checker/history';
import { addJob, addRun, at, call, emptyHistory, every, type JobOptions } from '../helpers/checker-history';

/*
 * I1c per time (test/checker/job-invariants.ts, skipKinds and byKind): a missing time is matched to the
 * kind of skip Temporal can have counted for it, so another time's count cannot hide it; and, for a job
 * removed before the rest, S <= M + U and a one-off's one time. Each bad history beside its good twin.
 */

const detail = (h: History) => checkHistory(h).violations.map((v) => `${v.invariant} ${v.detail}`);

/** A job every 4 s (SKIP), runs of 500 ms at each time but `skip`, paused at rest with these counters. */
function every4(skip: number[], counters: JobOptions['counters'] = {}) {
  const h = emptyHistory();
  const job = addJob(h, { spec: { trigger: { kind: 'interval', everyS: 4 } }, counters });
  for (const t of every(4, 4_000, 56_000)) if (!skip.includes(t)) addRun(h, job, t);
  return { h, job };
}

describe('I1c per time: the kind of skip that can stand for each missing time', () => {
  it('a start lost with no run in flight, hidden in the total by the overlap skip of a trigger call', () => {
    // The trigger at 20 s came while the run of 20 s ran: Temporal counts it as an overlap skip (SKIP).
    // The time of 40 s then started nothing: no run open from 40 s to 44.05 s, when the run of 44 s
    // started, well within any catch-up window: neither a catch-up nor an overlap skip can be it. The
    // total alone (1 missing, 1 counted) passed it (seed 6271's dropped start, PostgreSQL stopped).
    const { h, job } = every4([40_000], { skippedOverlap: 1 });
    job.triggers.push(call(20_100, 20_300));
    const v = detail(h);
    expect(v).toEqual([expect.stringMatching(/^I1c .*1 nominal times had no run, and no skip Temporal/)]);
    expect(v[0]).toContain('2026-12-04T10:00:40.000Z (next run started 2026-12-04T10:00:44.050Z)');
    expect(checkHistory(h).figures.modelFindings).toHaveLength(1);
  });

  it('good twins: a run still in flight at that time (an overlap skip), or the next run late (catch-up)', () => {
    const open = every4([40_000], { skippedOverlap: 1 });
    open.job.triggers.push(call(20_100, 20_300));
    open.job.runs.find((r) => r.scheduledAt!.getTime() === at(36_000))!.closedAt = new Date(at(41_000));
    expect(detail(open.h)).toEqual([]);
    // A job with a grace of 5 s (a catch-up window of 10 s): the schedule woke at 51 s (a fault, a loaded
    // server), skipped 40 s for the window, started 44 s, which skipped itself as a misfire, then 48 s.
    const late = every4([40_000, 44_000, 48_000], { missedCatchupWindow: 1 });
    late.job.edits[0]!.graceMs = 5_000;
    late.job.spec.graceS = 5;
    addRun(late.h, late.job, 44_000, {
      startAfter: 7_050,
      lasts: 50,
      status: 'skipped',
      skipReason: 'misfire',
    });
    addRun(late.h, late.job, 48_000, { startAfter: 3_200 });
    expect(detail(late.h)).toEqual([]);
    // Without a grace the window is Temporal's year: no catch-up skip, whatever the counter says.
    late.job.edits[0]!.graceMs = null;
    delete late.job.spec.graceS;
    late.job.runs = late.job.runs.filter((r) => r.status !== 'skipped');
    addRun(late.h, late.job, 44_000, { startAfter: 7_050, lasts: 100 });
    expect(detail(late.h)).toEqual([expect.stringMatching(/^I1c .*no skip Temporal counts can stand for/)]);
  });

  it('one wake took a lost start and the next time together: one violation, for the lost time', () => {
    // Seed 5183 (02:57): a calendar every 6 s, SKIP, grace 2 s (a 10 s window); PostgreSQL down from 27.6 to
    // 36 s. The wake after it took 30 and 36 s together; ProcessBuffer started 30 s (which failed until its
    // window ended, dropped, uncounted) and counted 36 s as an overlap skip with no run open.
    const h = emptyHistory();
    const job = addJob(h, {
      spec: { trigger: { kind: 'calendar', stepS: 6 }, graceS: 2 },
      counters: { skippedOverlap: 1 },
    });
    for (const t of every(6, 6_000, 54_000)) if (t !== 30_000 && t !== 36_000) addRun(h, job, t);
    h.faults.push({ kind: 'postgres-stop', t0: at(27_600), t1: at(36_000) });
    const v = detail(h);
    expect(v).toEqual([
      expect.stringMatching(/^I1c .*2 nominal times had no outcome but Temporal counted only 1 skips/),
    ]);
    // The good twin: 30 s counted too (a catch-up skip: the next run, of 42 s, started 12 s after it).
    job.counters!.missedCatchupWindow = 1;
    expect(detail(h)).toEqual([]);
    // Without the time before it missing, 36 s alone cannot be an overlap skip: no run was open.
    const alone = emptyHistory();
    const j2 = addJob(alone, {
      spec: { trigger: { kind: 'calendar', stepS: 6 }, graceS: 2 },
      counters: { skippedOverlap: 1 },
    });
    for (const t of every(6, 6_000, 54_000)) if (t !== 36_000) addRun(alone, j2, t);
    expect(detail(alone)).toEqual([expect.stringMatching(/^I1c .*no skip Temporal counts can stand for/)]);
  });

  it('times only a catch-up skip can stand for, with overlap skips counted instead', () => {
    // The job stops firing at 30 s, no run open after: nothing held 32 s back, so no overlap skip can stand
    // for it (the total, 13 counted for 13 missing, passed it). The times after it may be overlap skips of
    // one late wake that took them with 32 s, whose start failed: the first lost time is the one flagged.
    const h = emptyHistory();
    const job = addJob(h, { counters: { skippedOverlap: 13 } });
    for (const t of every(2, 2_000, 30_000)) addRun(h, job, t);
    expect(detail(h)).toEqual([
      expect.stringMatching(/^I1c .*1 nominal times .*only a catch-up skip.*: 2026-12-04T10:00:32.000Z \(/),
    ]);
    // Good twins: the catch-up window's skips; or the last run open to the end (overlap skips).
    job.counters = { skippedOverlap: 0, missedCatchupWindow: 13, buffered: 0, bufferDropped: 0 };
    expect(detail(h)).toEqual([]);
    job.counters = { skippedOverlap: 13, missedCatchupWindow: 0, buffered: 0, bufferDropped: 0 };
    job.runs.at(-1)!.closedAt = new Date(at(59_000));
    expect(detail(h)).toEqual([]);
  });

  it('times only an overlap skip can stand for, with catch-up skips counted instead', () => {
    // 20 s and 24 s missing while the run of 16 s ran to 25 s, the run of 28 s on time: the schedule
    // processed them within the window (catch-up impossible) while a run was open (SKIP skips them).
    const { h, job } = every4([20_000, 24_000], { missedCatchupWindow: 2 });
    job.runs.find((r) => r.scheduledAt!.getTime() === at(16_000))!.closedAt = new Date(at(25_000));
    expect(detail(h)).toEqual([expect.stringMatching(/^I1c .*2 nominal times .*only an overlap skip/)]);
    job.counters = { skippedOverlap: 2, missedCatchupWindow: 0, buffered: 0, bufferDropped: 0 };
    expect(detail(h)).toEqual([]);
  });
});

describe('I1c for a job removed before the rest, and for a one-off', () => {
  /** Every 2 s, runs up to `runsUpTo`, removed at 40 s with its counters read at 39.5 s. */
  const removedAt40 = (runsUpTo: number, skippedOverlap: number) => {
    const h = emptyHistory();
    const job = addJob(h, { finalPauseAt: null });
    job.states.push({ ...call(40_000, 40_200), kind: 'remove' });
    job.countersBeforeRemove = {
      readAt: at(39_500),
      processedBefore: at(40_000),
      skippedOverlap,
      missedCatchupWindow: 0,
      buffered: 0,
      bufferDropped: 0,
    };
    for (const t of every(2, 2_000, runsUpTo)) addRun(h, job, t);
    return { h, job };
  };

  it('S <= M + U: more skips counted before the remove than occasions without a run', () => {
    // Every time ran to 38 s; 4 overlap skips counted; 3 times without a run are ambiguous: 0 s (the
    // create's second), 40 and 42 s (within the remove's slack).
    const { h } = removedAt40(38_000, 4);
    expect(detail(h)).toEqual([
      expect.stringMatching(
        /^I1c .*counted 4 skips when read before its removal .*more than the 0 certain and 3 possible/,
      ),
    ]);
  });

  it('good twin: the skips stand for times that did not run while the run of 32 s was open', () => {
    // 34 and 36 s certain without a run; 0, 38, 40 and 42 s ambiguous without one: 6 occasions.
    const { h, job } = removedAt40(32_000, 6);
    job.runs.at(-1)!.closedAt = new Date(at(41_000));
    expect(detail(h)).toEqual([]);
    job.countersBeforeRemove!.skippedOverlap = 7;
    expect(detail(h)).toEqual([
      expect.stringMatching(
        /^I1c .*counted 7 skips when read before its removal .*the 2 certain and 4 possible/,
      ),
    ]);
  });

  it('a one-off removed after its time, its counters read first, that never ran and counted no skip', () => {
    const h = emptyHistory();
    const job = addJob(h, {
      spec: { trigger: { kind: 'once', inMs: 5_000 } },
      runAt: 5_000,
      finalPauseAt: null,
    });
    job.states.push({ ...call(20_000, 20_200), kind: 'remove' });
    // Temporal listed no next action time: its one time was processed (the runner reads it as the read).
    job.countersBeforeRemove = {
      readAt: at(19_500),
      processedBefore: at(19_500),
      skippedOverlap: 0,
      missedCatchupWindow: 0,
      buffered: 0,
      bufferDropped: 0,
    };
    expect(detail(h)).toEqual([
      expect.stringMatching(/^I1c .*1 nominal times it had processed before its removal/),
    ]);
    // Good twins: its run; a catch-up skip counted; or its time still listed as next (not processed).
    addRun(h, job, 5_000);
    expect(detail(h)).toEqual([]);
    job.runs = [];
    h.steps = [];
    job.countersBeforeRemove.missedCatchupWindow = 1;
    expect(detail(h)).toEqual([]);
    job.countersBeforeRemove.missedCatchupWindow = 0;
    job.countersBeforeRemove.processedBefore = at(5_000);
    expect(detail(h)).toEqual([]);
  });
});

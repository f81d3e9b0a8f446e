import { describe, expect, it } from 'vitest';
import { checkHistory, report } from '../checker/invariants';
import type { History, JobLife } from '../checker/history';
import { addJob, addRun, at, call, emptyHistory, every, fillRuns } from '../helpers/checker-history';

/*
 * The checker's carve-outs (test/checker/job-invariants.ts) are no wider than the Temporal behaviour
 * each stands for. Each test feeds a bad history that the carve-out's old, loose form excused (the old
 * rule is restated here, as it was, to show it) and that the checker must now flag; and the history the
 * carve-out is for, which it must still pass.
 */

const SLACK_MS = 2_000;

/**
 * The old buffer-drop rule (before issue 32): a missing time T of a queueing job was "dropped by a pause"
 * when a pause or removal was sent after T and no run of a later time started before that call, with no
 * run in flight needed.
 */
function oldDroppedByStop(job: JobLife, t: number): boolean {
  const stops = [
    ...job.states.filter((s) => s.kind !== 'resume'),
    ...(job.finalPause ? [job.finalPause] : []),
  ];
  return stops.some(
    (p) =>
      p.t1 + SLACK_MS > t &&
      !job.runs.some((r) => r.scheduledAt!.getTime() > t && r.startedAt.getTime() < p.t0 - SLACK_MS),
  );
}

/** The old I1a allowance: a time's runs could exceed one by the number of trigger calls near it. */
function oldDuplicatesFlagged(job: JobLife): number {
  const byTime = new Map<number, number>();
  for (const r of job.runs)
    byTime.set(r.scheduledAt!.getTime(), (byTime.get(r.scheduledAt!.getTime()) ?? 0) + 1);
  let flagged = 0;
  for (const [t, n] of byTime) {
    const near = job.triggers.filter((c) => t >= c.t0 - 1_000 && t <= c.t1 + SLACK_MS).length;
    if (n > 1 + near) flagged++;
  }
  return flagged;
}

const queueing = { spec: { maxInstances: 1 as const, coalesce: false } };

describe('the buffer-drop carve-out needs a run in flight', () => {
  it('a queueing job that never started one run in 60 s is a violation (the old rule excused every time)', () => {
    const h = emptyHistory();
    const job = addJob(h, queueing);
    const times = every(2, 2_000, 56_000);
    expect(times.filter((t) => oldDroppedByStop(job, at(t)))).toHaveLength(times.length);
    const r = checkHistory(h);
    expect(r.violations.map((v) => v.invariant)).toEqual(['I1c']);
    expect(r.violations[0]!.detail).toContain(`${times.length} nominal times had no outcome`);
    expect(r.figures.tally.excused).toEqual({});
  });

  it('a queueing job whose runs ended at 20 s and that never ran again is a violation', () => {
    const h = emptyHistory();
    const job = addJob(h, queueing);
    for (const t of every(2, 2_000, 20_000)) addRun(h, job, t);
    expect(every(2, 22_000, 56_000).every((t) => oldDroppedByStop(job, at(t)))).toBe(true);
    expect(checkHistory(h).violations.map((v) => v.invariant)).toEqual(['I1c']);
  });

  it('still excuses the times buffered behind a run in flight until the pause', () => {
    const h = emptyHistory();
    const job = addJob(h, queueing);
    // One run from 2 s that outlasts the final pause: every later time waits in the buffer, and the
    // pause drops them (Temporal's processBuffer, paused: drained without a start or a count).
    addRun(h, job, 2_000, { lasts: 70_000 });
    const r = checkHistory(h);
    expect(r.violations).toEqual([]);
    expect(r.figures.tally.excused).toEqual({
      'queued time dropped by a pause or removal while a run was in flight': every(2, 4_000, 56_000).length,
    });
  });

  it('does not excuse a time after the run in flight ended, though earlier ones were buffered', () => {
    const h = emptyHistory();
    const job = addJob(h, queueing);
    addRun(h, job, 2_000, { lasts: 30_000 }); // in flight to ~32 s: the buffer then starts 4 s, which never ran
    job.states.push({ ...call(50_000, 50_200), kind: 'pause' });
    const v = checkHistory(h).violations;
    expect(v.map((x) => x.invariant)).toEqual(['I1c']);
    // 4 s..32 s were held while the run was in flight, but nothing ran after it ended: every one is missing.
    expect(v[0]!.detail).toContain('2026-12-04T10:00:04.000Z');
  });
});

describe('one trigger call accounts for one run at most', () => {
  /** A job firing every 2 s, with a second run at each of six times next to one slow trigger call. */
  function slowTrigger(): { h: History; job: JobLife } {
    const h = emptyHistory();
    const job = addJob(h);
    fillRuns(h, job);
    job.triggers.push(call(9_000, 19_000)); // answered in 10 s
    for (const t of every(2, 10_000, 20_000)) addRun(h, job, t, { startAfter: 700, lasts: 300 });
    return { h, job };
  }

  it('one slow trigger call next to 6 duplicated times gives 5 violations (the old rule: none)', () => {
    const { h, job } = slowTrigger();
    expect(oldDuplicatesFlagged(job)).toBe(0);
    const r = checkHistory(h);
    expect(r.violations.map((v) => v.invariant)).toEqual(['I1a', 'I1a', 'I1a', 'I1a', 'I1a']);
    expect(r.figures.tally.excused).toEqual({
      'extra run started by its own trigger call (one per call)': 1,
    });
  });

  it('two runs at seconds no schedule names, one trigger call: one of them has no cause', () => {
    const h = emptyHistory();
    const job = addJob(h);
    fillRuns(h, job);
    job.triggers.push(call(9_300, 9_600));
    addRun(h, job, 9_000, { lasts: 300 });
    expect(checkHistory(h).violations).toEqual([]);
    addRun(h, job, 11_000, { startAfter: 500, lasts: 300 });
    expect(checkHistory(h).violations.map((v) => v.invariant)).toEqual(['I1b']);
  });

  it('a trigger call excuses only a run in its own window', () => {
    const h = emptyHistory();
    const job = addJob(h);
    fillRuns(h, job);
    job.triggers.push(call(30_000, 30_200));
    addRun(h, job, 10_000, { startAfter: 700, lasts: 300 });
    expect(checkHistory(h).violations.map((v) => v.invariant)).toEqual(['I1a']);
  });
});

describe('the figures', () => {
  it('count only outcomes a check could fire on, split certain and ambiguous, and excuses by reason', () => {
    const h = emptyHistory();
    // Removed by an operation: its counters are never read, so its missing times check nothing.
    const removed = addJob(h, { finalPauseAt: null });
    removed.states.push({ ...call(20_000, 20_200), kind: 'remove' });
    for (const t of every(2, 2_000, 10_000)) addRun(h, removed, t);
    const kept = addJob(h);
    fillRuns(h, kept);
    const r = checkHistory(h);
    expect(r.violations).toEqual([]);
    const t = r.figures.tally;
    // I1a: one per second with runs (5 + 29); the removed job's 4 missing certain times count nowhere.
    expect(t.checked.I1a).toEqual({ certain: 33, ambiguous: 1 });
    expect(t.checked.I1c).toBeUndefined();
    const text = report(h, r, 'replay');
    expect(text).toContain('outcomes checked: ');
    expect(text).toContain('excused by reason: none');
    expect(text).toContain('violations: 0 (none)');
  });
});

import { describe, expect, it } from 'vitest';
import { checkHistory } from '../checker/invariants';
import type { History, JobLife } from '../checker/history';
import { addJob, addRun, at, call, emptyHistory, every } from '../helpers/checker-history';

/*
 * I6 `silent` is required only where the evaluator can see the stretch (test/checker/alert-invariants.ts,
 * checkSilence): not before its first read of the job, and, after a silent period, not before its listing
 * of completed runs shows the run that ended it. Each beside the twin where the alert is due.
 */

const i6 = (h: History) =>
  checkHistory(h)
    .violations.filter((v) => v.invariant === 'I6')
    .map((v) => v.detail);

const silent = (h: History, job: JobLife, atMs: number, since: number) =>
  h.alerts.push({
    at: at(atMs + 100),
    event: {
      kind: 'silent',
      jobId: job.id,
      text: '',
      at: new Date(at(atMs)).toISOString(),
      lastSuccessAt: new Date(at(since)).toISOString(),
    },
  });

describe('I6 silent: due only once the evaluator can see the stretch', () => {
  it('a job removed before the evaluator surely read it owes no silent alert; one removed later does', () => {
    // A one-off far ahead (no run), expectSuccessWithin 10 s, created at 0.1-0.3 s: the first read may come
    // at 30.3 s (the listing of the schedules written every 15 s, a wave, the reads).
    const removedAt = (ms: number) => {
      const h = emptyHistory();
      const job = addJob(h, {
        spec: { trigger: { kind: 'once', inMs: 120_000 }, silentS: 10 },
        runAt: 120_000,
        finalPauseAt: null,
      });
      job.states.push({ ...call(ms, ms + 20), kind: 'remove' });
      return h;
    };
    expect(i6(removedAt(25_000))).toEqual([]);
    expect(i6(removedAt(50_000))).toEqual([expect.stringContaining('but no silent alert arrived')]);
  });

  it('after a silent period, the stretch from the run that ended it is due once the listing shows that run', () => {
    // Every 2 s, SKIP; the run of 12 s works 14 s (silent raised at 21 s, ended at 26.05 s, recovered at
    // 40 s), the run of 28 s works 22 s: from 26.05 to 50 s no run completed (24 s, expectSuccessWithin 10 s).
    const make = (withSilentPeriod: boolean) => {
      const h = emptyHistory();
      const job = addJob(h, { spec: { silentS: 10 }, counters: { skippedOverlap: 18 } });
      for (const t of every(2, 2_000, 58_000)) {
        if ((t > 12_000 && t <= 26_000) || (t > 28_000 && t <= 50_000)) continue;
        addRun(h, job, t, t === 12_000 ? { lasts: 14_000 } : t === 28_000 ? { lasts: 22_000 } : {});
      }
      if (withSilentPeriod) {
        silent(h, job, 21_000, 10_550);
        h.alerts.push({
          at: at(40_100),
          event: {
            kind: 'recovered',
            jobId: job.id,
            text: '',
            at: new Date(at(40_000)).toISOString(),
            lastSuccessAt: new Date(at(10_550)).toISOString(),
          },
        });
      }
      return h;
    };
    // Silent when it began: the evaluator sees the run of 26.05 s at its listing (by 51 s), after 50 s.
    expect(i6(make(true))).toEqual([]);
    // Not silent: its deadline ran from the last success it knew and was confirmed by a fresh read.
    expect(i6(make(false))).toEqual([expect.stringContaining('but no silent alert arrived')]);
  });
});

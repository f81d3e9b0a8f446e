import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dryRun, type DryRunJob } from '../../src/client/jobs/job-dry-run';
import type { DryRunOccurrence } from '../../src/schedule/dry-run-types';
import { fuzzParams } from '../helpers/fuzz';

/*
 * What must hold of any dry run, for generated jobs and assumptions: one decision per server fire, in
 * order; a run starts no earlier than its nominal time and never while no worker is up; a skipped or
 * coalesced occurrence runs nothing; with one instance (SKIP, BUFFER_*), runs never overlap; with
 * maxInstances N, at most N runs at once; a coalesced occurrence names an earlier occurrence that was
 * judged, not skipped by Temporal; no run is later than the misfire grace after what it is judged by.
 */

const BASE = Date.parse('2027-01-01T00:00:00Z');
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

const policies = fc.oneof(
  fc.record({ coalesce: fc.boolean() }),
  fc.record({ maxInstances: fc.integer({ min: 2, max: 4 }) }),
  fc.record({
    overlap: fc.constantFrom(
      'SKIP',
      'BUFFER_ONE',
      'BUFFER_ALL',
      'CANCEL_OTHER',
      'TERMINATE_OTHER',
      'ALLOW_ALL',
    ),
  }),
);
const cases = fc.record({
  everyMin: fc.integer({ min: 1, max: 30 }),
  policies,
  graceMin: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
  runMin: fc.integer({ min: 0, max: 90 }),
  down: fc.array(fc.tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 120 })), {
    maxLength: 3,
  }),
});

const isRun = (o: DryRunOccurrence) => o.decision === 'run' || o.decision === 'buffered';

describe('dryRun invariants (generated jobs)', () => {
  it('holds for every generated job and assumption', () => {
    fc.assert(
      fc.property(cases, (c) => {
        const job = {
          every: `${c.everyMin}m`,
          ...c.policies,
          ...(c.graceMin !== undefined ? { misfireGraceTime: `${c.graceMin}m` } : {}),
        } as DryRunJob;
        const spans = c.down.map(([at, len]) => ({ from: BASE + at * MIN, to: BASE + (at + len) * MIN }));
        const r = dryRun(job, {
          from: iso(BASE),
          to: iso(BASE + 300 * MIN),
          runDuration: c.runMin * MIN,
          workersDown: spans.map((s) => ({ from: iso(s.from), to: iso(s.to) })),
        });
        const nominals = r.occurrences.map((o) => Date.parse(o.nominal));
        // Intervals count from the Unix epoch: every multiple of `every` in the window.
        const step = c.everyMin * MIN;
        const expected: number[] = [];
        for (let t = Math.floor(BASE / step) * step + step; t <= BASE + 300 * MIN; t += step)
          expected.push(t);
        expect(nominals).toEqual(expected);
        const down = (t: number) => spans.some((s) => t >= s.from && t < s.to);
        const runs = r.occurrences.filter(isRun).map((o) => ({
          o,
          start: Date.parse(o.startsAt!),
          end: Date.parse(o.endsAt!),
        }));
        for (const o of r.occurrences) {
          if (!isRun(o)) expect(o.startsAt).toBeUndefined();
          if (o.decision === 'skip') expect(o.reason).toBeDefined();
          if (o.decision === 'coalesced') {
            const into = r.occurrences.find((p) => p.nominal === o.coalescedInto)!;
            expect(into.nominal < o.nominal).toBe(true);
            expect(into.decision === 'run' || into.reason === 'misfire').toBe(true);
          }
        }
        for (const { o, start, end } of runs) {
          expect(start).toBeGreaterThanOrEqual(Date.parse(o.nominal));
          expect(down(start)).toBe(false);
          expect(end).toBeGreaterThanOrEqual(start);
          if (r.policies.misfireGraceMs !== undefined) {
            expect(o.lateMs ?? 0).toBeLessThanOrEqual(r.policies.misfireGraceMs);
          }
        }
        const limit =
          r.policies.overlap === 'ALLOW_ALL'
            ? r.policies.maxInstances > 1
              ? r.policies.maxInstances
              : Infinity
            : 1;
        for (const { start } of runs) {
          const at = runs.filter((x) => x.start <= start && x.end > start).length;
          expect(at).toBeLessThanOrEqual(limit);
        }
      }),
      fuzzParams(300),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { makePlan } from '../checker/generator';

const tenths = (at: number[], durationMs: number) => {
  const counts = new Array<number>(10).fill(0);
  for (const t of at) counts[Math.min(9, Math.floor((t / durationMs) * 10))]!++;
  return counts;
};

describe('the checker plan', () => {
  // With fc.double (drawn over representable doubles, most near 0) 844 of the 1,022 operations of the
  // 30-minute plan at seed 20261204 fell in its first 5 s: a storm, then almost nothing.
  it.each([20261204, 20261201, 1, 42])(
    'spreads its operations evenly over the duration (seed %i)',
    (seed) => {
      const durationMs = 30 * 60_000;
      const plan = makePlan({ seed, durationMs, serverFaults: ['temporal-kill', 'postgres-stop'] });
      const counts = tenths(
        plan.map((p) => p.at),
        durationMs,
      );
      for (const n of counts) {
        expect(n).toBeGreaterThan(plan.length * 0.05);
        expect(n).toBeLessThan(plan.length * 0.15);
      }
      expect(plan.filter((p) => p.at < 5_000).length).toBeLessThan(20);
    },
  );

  it('is the same for the same seed and duration, and keeps faults 12 s apart', () => {
    const opts = { seed: 7, durationMs: 10 * 60_000, serverFaults: ['temporal-kill'] as const };
    const plan = makePlan(opts);
    expect(makePlan(opts)).toEqual(plan);
    const faults = plan.filter((p) => p.op.kind === 'worker-kill' || p.op.kind === 'temporal-kill');
    expect(faults.map((f) => f.op.kind)).toEqual(expect.arrayContaining(['worker-kill', 'temporal-kill']));
    for (let i = 1; i < faults.length; i++)
      expect(faults[i]!.at - faults[i - 1]!.at).toBeGreaterThanOrEqual(12_000);
  });
});

describe('the checker plan draws the whole mix', () => {
  // Every kind of operation the runner knows, faults included: a kind the generator stopped drawing would
  // leave its part of the product unchecked without a word.
  const kinds = [
    'create',
    'modify',
    'reschedule',
    'update-cli',
    'deploy',
    'repair',
    'pause',
    'resume',
    'trigger',
    'remove',
    'backfill',
    'key-burst',
    'parent',
    'flaky',
    'client-kill',
    'worker-kill',
    'alert-worker-kill',
    'temporal-kill',
    'postgres-stop',
  ];
  it.each([20261204, 4817])('a 30-minute plan holds every kind of operation (seed %i)', (seed) => {
    const plan = makePlan({
      seed,
      durationMs: 30 * 60_000,
      serverFaults: ['temporal-kill', 'postgres-stop'],
    });
    expect(new Set(plan.map((p) => p.op.kind))).toEqual(new Set(kinds));
    const deploys = plan.flatMap((p) => (p.op.kind === 'deploy' ? [p.op] : []));
    expect(deploys.some((d) => d.prune)).toBe(true);
    expect(deploys.some((d) => d.slots.some((s) => s?.change === 'both'))).toBe(true);
    // A set refuses one-offs: none is drawn for a slot.
    expect(deploys.flatMap((d) => d.slots).some((s) => s?.job.trigger.kind === 'once')).toBe(false);
  });
});

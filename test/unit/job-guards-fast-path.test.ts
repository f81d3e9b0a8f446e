import { describe, expect, it } from 'vitest';
import { compilePolicies } from '../../src/schedule/policies';
import { runJobContext } from '../../src/client/jobs/store/job-options';
import { needsGuards } from '../../src/workflows/guards/job-guards';

/*
 * Which scheduled runs may skip the job guards' own frame (the fast path of issue 35): only a job none of
 * whose run-context fields asks for a guard. The contexts are built by the writer's own `runJobContext`
 * from job options, as a scheduled run receives them; a field added to RunJobContext without a role in
 * job-guards.ts does not compile (its `satisfies`).
 */
describe('needsGuards: the job guards a scheduled run cannot skip', () => {
  const plain = compilePolicies({});
  it('a plain job (SKIP, with or without a grace) takes the fast path', () => {
    expect(needsGuards(runJobContext('j', plain, false, undefined))).toBe(false);
    expect(
      needsGuards(runJobContext('j', compilePolicies({ misfireGraceTime: '5s' }), false, undefined)),
    ).toBe(false);
    expect(needsGuards(runJobContext('j', compilePolicies({ coalesce: false }), false, undefined))).toBe(
      false,
    );
    expect(needsGuards(runJobContext('j', compilePolicies({ maxInstances: 1 }), false, undefined))).toBe(
      false,
    );
  });

  it('each feature that needs a guard sends the run through them', () => {
    const cases = {
      maxInstances: runJobContext('j', compilePolicies({ maxInstances: 2 }), false, undefined),
      once: runJobContext('j', plain, true, undefined),
      onError: runJobContext('j', plain, false, 'notify'),
      dstSkips: runJobContext('j', plain, false, undefined, { dstSkips: ['2027-03-28T01:30:00.000Z'] }),
      horizonEnd: runJobContext('j', plain, false, undefined, { horizonEnd: '2027-12-31T00:00:00.000Z' }),
      alerts: runJobContext('j', plain, false, undefined, { alerts: { lateAfterMs: 5_000 } }),
    };
    for (const [feature, context] of Object.entries(cases)) {
      expect(context, feature).toHaveProperty(feature);
      expect(needsGuards(context), feature).toBe(true);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { compilePolicies } from '../../src/schedule/policies';

/*
 * The catch-up window a job's policies give Temporal. Temporal 1.32 retries a scheduled start that fails
 * (server or database away) until the time's actual start + the catch-up window, then drops it, counting it
 * nowhere (service/worker/scheduler/workflow.go: startWorkflow's ScheduleToCloseTimeout, processBuffer's
 * `continue`). A job with a grace therefore gets a window of at least a minute, and the run judges its own
 * lateness against the grace (a misfire skip, in its history).
 */
describe('compilePolicies: the catch-up window', () => {
  it('gives a job with a short grace a minute, not the grace rounded to 10 s', () => {
    expect(compilePolicies({ misfireGraceTime: '3s' })).toMatchObject({
      catchupWindowMs: 60_000,
      misfireGraceMs: 3_000,
    });
    expect(compilePolicies({ misfireGraceTime: 1 })).toMatchObject({
      catchupWindowMs: 60_000,
      misfireGraceMs: 1,
    });
  });

  it('gives a job with a grace over a minute its grace', () => {
    expect(compilePolicies({ misfireGraceTime: '10m' })).toMatchObject({
      catchupWindowMs: 600_000,
      misfireGraceMs: 600_000,
    });
  });

  it('keeps a catchupWindow given, down to Temporal’s 10 s, whatever the grace', () => {
    expect(compilePolicies({ misfireGraceTime: '3s', catchupWindow: '10s' }).catchupWindowMs).toBe(10_000);
    expect(compilePolicies({ catchupWindow: '2m' }).catchupWindowMs).toBe(120_000);
  });

  it('leaves Temporal’s default (a year) to a job with neither', () => {
    expect(compilePolicies({}).catchupWindowMs).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { activityOptions, localActivityOptions } from '../../src/workflows/run/step-options';

/*
 * A step's activity options: its id names the activity in the history; a summary (Temporal's user
 * metadata, a payload per scheduled step) only when the activity's type does not already say the same.
 */
describe('activityOptions', () => {
  it('gives no summary to a step named as its activity: the event history shows the same name as its type', () => {
    const options = activityOptions({ activity: 'fetch' }, 'fetch');
    expect(options.activityId).toBe('fetch');
    expect(options).not.toHaveProperty('summary');
  });

  it('names the step and its activity when they differ, a map item by its index', () => {
    expect(activityOptions({ activity: 'flaky' }, 'fetch').summary).toBe('fetch: flaky');
    expect(activityOptions({ activity: 'double' }, 'each[1]').summary).toBe('each[1]: double');
    expect(activityOptions({ activity: 'charge' }, 'charge:compensate').summary).toBe(
      'charge:compensate: charge',
    );
    expect(activityOptions({}, 'sub:compensate').summary).toBe('sub:compensate');
  });

  it("gives a local step its path as summary where the activity's name does not say it", () => {
    expect(localActivityOptions({ activity: 'double', local: true }, 'each[2]').summary).toBe('each[2]');
    expect(localActivityOptions({ activity: 'flaky', local: true }, 'fetch').summary).toBe('fetch');
    expect(localActivityOptions({ activity: 'fetch', local: true }, 'fetch')).not.toHaveProperty('summary');
  });
});

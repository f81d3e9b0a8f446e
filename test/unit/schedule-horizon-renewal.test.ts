import { describe, expect, it } from 'vitest';
import { compilePolicies } from '../../src/schedule/policies';
import { compileTrigger } from '../../src/schedule/compile-trigger';
import { runJobContext, scheduleSpec } from '../../src/client/jobs/store/job-options';
import type { Trigger } from '../../src/schedule/trigger-types';
import { HORIZON_RENEWAL_THRESHOLD_MS, horizonRenewalDue } from '../../src/workflows/guards/horizon-renewal';

/*
 * The horizon a job's runs carry (the first end of its holiday years, weekday corrections and DST policy)
 * and the run's decision to renew it: due when less than a year is left.
 */

const DAY = 86_400_000;

describe('horizonRenewalDue: a run renews its job when less than a year of horizon is left', () => {
  const end = '2027-01-01T00:00:00.000Z';
  const endMs = Date.parse(end);
  it.each([
    ['three years left', endMs - 3 * 365 * DAY, false],
    ['a year and a day left', endMs - HORIZON_RENEWAL_THRESHOLD_MS - DAY, false],
    ['exactly the threshold left', endMs - HORIZON_RENEWAL_THRESHOLD_MS, false],
    ['a millisecond under the threshold', endMs - HORIZON_RENEWAL_THRESHOLD_MS + 1, true],
    ['a month left', endMs - 30 * DAY, true],
    ['the horizon already past', endMs + 400 * DAY, true],
  ])('%s: %s', (_what, now, due) => {
    expect(horizonRenewalDue(end, now)).toBe(due);
  });

  it('never for a job without a horizon, nor for a value that is no instant', () => {
    expect(horizonRenewalDue(undefined, endMs)).toBe(false);
    expect(horizonRenewalDue('not a date', endMs)).toBe(false);
  });

  it('takes another threshold', () => {
    expect(horizonRenewalDue(end, endMs - 10 * DAY, 7 * DAY)).toBe(false);
    expect(horizonRenewalDue(end, endMs - 6 * DAY, 7 * DAY)).toBe(true);
  });
});

describe('the horizon end a job is written with', () => {
  const policies = compilePolicies({});
  const at = (trigger: Trigger, now: string) => {
    const instant = new Date(now);
    return scheduleSpec(compileTrigger(trigger, 'UTC', undefined, instant), policies, instant).horizonEnd;
  };

  it('holiday sets: the first instant after the horizon years (this year and the next three)', () => {
    expect(at({ cron: '0 9 * * *', exclude: { holidays: 'FR' } }, '2026-06-15T10:00:00Z')).toBe(
      '2030-01-01T00:00:00.000Z',
    );
  });

  it('a DST policy: five years from the write', () => {
    const trigger: Trigger = { cron: '30 2 * * *', timezone: 'Europe/Paris', dst: { gap: 'shift' } };
    expect(at(trigger, '2026-06-15T10:00:00Z')).toBe('2031-06-15T10:00:00.000Z');
  });

  it('both: whichever ends first', () => {
    const trigger: Trigger = {
      cron: '30 2 * * *',
      timezone: 'Europe/Paris',
      dst: { gap: 'shift' },
      exclude: { holidays: 'FR' },
    };
    expect(at(trigger, '2026-06-15T10:00:00Z')).toBe('2030-01-01T00:00:00.000Z');
  });

  it('weekday corrections of a Quartz form hold for the holidays years', () => {
    const trigger: Trigger = { cron: '0 9 * * SAT#1', timezone: 'America/Santiago' };
    expect(at(trigger, '2026-06-15T10:00:00Z')).toBe('2030-01-01T00:00:00.000Z');
  });

  it('none for jobs whose schedule does not depend on the year it was written in', () => {
    expect(at({ cron: '0 9 * * *', exclude: '2027-01-01', businessDays: true }, '2026-06-15T10:00:00Z')).toBe(
      undefined,
    );
    expect(at({ every: '1h' }, '2026-06-15T10:00:00Z')).toBe(undefined);
    const context = runJobContext('j', policies, false, undefined, { horizonEnd: undefined });
    expect(context).not.toHaveProperty('horizonEnd');
  });

  it('travels in the run input', () => {
    const context = runJobContext('j', policies, false, undefined, {
      horizonEnd: '2030-01-01T00:00:00.000Z',
    });
    expect(context.horizonEnd).toBe('2030-01-01T00:00:00.000Z');
  });
});

import { describe, expect, it } from 'vitest';
import {
  clockStart,
  countsDueAfter,
  deadlineOf,
  type WatchedJob,
} from '../../src/activities/alerts/evaluator/evaluator-state';
import { alertDeliveryWorkflowId } from '../../src/workflows/alerts/evaluator-defs';

/*
 * The evaluator's clock and its cause ids, worked out by hand: the dead-man clock runs from the latest of
 * the last completed run, the switch's setting (deadManSince) and the schedule's creation; an alert's
 * delivery id is derived from its cause only, so two evaluators (or one rebuilt) derive the same id.
 */

const webhook = { webhook: { url: 'http://127.0.0.1:9/x', timeoutMs: 1000 } };
const job = (over: Partial<WatchedJob> = {}): WatchedJob => ({
  jobId: 'j',
  config: { expectSuccessWithinMs: 60_000, onSilent: webhook },
  createdAt: '2026-12-04T10:00:00.000Z',
  countsDueAt: Infinity,
  paused: false,
  ...over,
});

describe('the dead-man clock', () => {
  it('runs from the schedule creation when nothing else is known', () => {
    expect(clockStart(job())).toBe('2026-12-04T10:00:00.000Z');
    expect(deadlineOf(job())).toBe(Date.parse('2026-12-04T10:01:00.000Z'));
  });

  it('runs from the switch when it was set after the last success (a switch added later pages no sooner)', () => {
    const j = job({
      lastSuccessAt: '2026-12-04T10:05:00.000Z',
      config: { expectSuccessWithinMs: 60_000, onSilent: webhook, deadManSince: '2026-12-04T10:07:00.000Z' },
    });
    expect(clockStart(j)).toBe('2026-12-04T10:07:00.000Z');
  });

  it('runs from the last success when it is the latest', () => {
    const j = job({
      lastSuccessAt: '2026-12-04T10:09:00.000Z',
      config: { expectSuccessWithinMs: 60_000, onSilent: webhook, deadManSince: '2026-12-04T10:07:00.000Z' },
    });
    expect(deadlineOf(j)).toBe(Date.parse('2026-12-04T10:10:00.000Z'));
  });

  it('has no deadline while a silent period is open, nor without a switch', () => {
    expect(deadlineOf(job({ silentSince: '2026-12-04T10:00:00.000Z' }))).toBe(Infinity);
    expect(deadlineOf(job({ config: { onMissed: webhook } }))).toBe(Infinity);
  });
});

describe('when the counts are read', () => {
  const now = Date.parse('2026-12-04T12:00:00.000Z');
  it('30 s after the next nominal time, never sooner than 5 minutes after the last read after one', () => {
    const daily = job({
      config: { onMissed: webhook },
      nextActionAt: Date.parse('2026-12-05T03:00:00.000Z'),
    });
    expect(countsDueAfter(daily, now)).toBe(Date.parse('2026-12-05T03:00:30.000Z'));
    const everySecond = job({ config: { onMissed: webhook }, nextActionAt: now + 1000, nominalCheckAt: now });
    expect(countsDueAfter(everySecond, now)).toBe(now + 5 * 60_000);
  });

  it('a job read minutes before its nominal time is read 30 s after it, not 5 minutes after the first read', () => {
    // Created (or read by a rebuilt evaluator) at 02:57; its first read of the counts 30 s later was not
    // after a nominal time, so it does not push the read after 03:00 to 03:02:30.
    const at0257 = Date.parse('2026-12-05T02:57:30.000Z');
    const nightly = job({
      config: { onMissed: webhook },
      nextActionAt: Date.parse('2026-12-05T03:00:00.000Z'),
    });
    expect(countsDueAfter(nightly, at0257)).toBe(Date.parse('2026-12-05T03:00:30.000Z'));
    // Read after 03:00 (nominalCheckAt 03:00:30): the next nominal time is tomorrow's.
    const tomorrow = job({
      config: { onMissed: webhook },
      nextActionAt: Date.parse('2026-12-06T03:00:00.000Z'),
      nominalCheckAt: Date.parse('2026-12-05T03:00:30.000Z'),
    });
    expect(countsDueAfter(tomorrow, Date.parse('2026-12-05T03:00:30.000Z'))).toBe(
      Date.parse('2026-12-06T03:00:30.000Z'),
    );
  });

  it('once a day when the schedule names no next time (paused, spent), never without onMissed', () => {
    expect(countsDueAfter(job({ config: { onMissed: webhook } }), now)).toBe(now + 24 * 3600_000);
    expect(countsDueAfter(job(), now)).toBe(Infinity);
  });
});

describe('the delivery id of a cause', () => {
  it('names the cause only: kind, clock start or counter, creation, job', () => {
    expect(
      alertDeliveryWorkflowId({ kind: 'silent', jobId: 'etl', lastSuccessAt: '2026-12-04T10:00:00.000Z' }),
    ).toBe('tflow-alert:silent:2026-12-04T10:00:00.000Z:etl');
    expect(
      alertDeliveryWorkflowId({ kind: 'recovered', jobId: 'etl', lastSuccessAt: '2026-12-04T10:00:00.000Z' }),
    ).toBe('tflow-alert:recovered:2026-12-04T10:00:00.000Z:etl');
    expect(
      alertDeliveryWorkflowId({
        kind: 'missed',
        jobId: 'etl',
        reason: 'overlap',
        count: 3,
        createdAt: '2026-12-04T10:00:00.000Z',
      }),
    ).toBe(`tflow-alert:missed:overlap:3:${Date.parse('2026-12-04T10:00:00.000Z')}:etl`);
  });

  it('differs for a job id created again (its counters start at zero again)', () => {
    const cause = { kind: 'missed' as const, jobId: 'etl', reason: 'overlap' as const, count: 1 };
    expect(alertDeliveryWorkflowId({ ...cause, createdAt: '2026-12-04T10:00:00.000Z' })).not.toBe(
      alertDeliveryWorkflowId({ ...cause, createdAt: '2026-12-04T11:00:00.000Z' }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { compileTrigger } from '../../src/schedule/compile-trigger';
import { RunAtInPastError, dueOneOff } from '../../src/schedule/one-off-due';

const NOW = new Date('2026-06-01T12:00:00.400Z');
const once = (runAt: string) => compileTrigger({ runAt }, 'UTC');

describe('dueOneOff: when a one-off runs at once', () => {
  it.each([
    // [runAt, grace ms, expected: undefined (at its time) or the second backfilled]
    ['2026-06-01T12:00:05Z', undefined, undefined],
    // Its second starts 0.6 s ahead: too near for the server to take it, so it runs at once.
    ['2026-06-01T12:00:01.500Z', undefined, '2026-06-01T12:00:01.000Z'],
    ['2026-06-01T12:00:02Z', undefined, undefined], // 1.6 s ahead: Temporal fires it
    ['2026-06-01T12:00:00.900Z', undefined, '2026-06-01T12:00:00.000Z'], // second already begun
    ['2026-06-01T12:00:00.400Z', undefined, '2026-06-01T12:00:00.000Z'], // runAt: new Date()
    ['2026-06-01T11:59:59.500Z', undefined, '2026-06-01T11:59:59.000Z'], // 0.9 s late, default 1 s
    ['2026-06-01T11:59:30Z', 60_000, '2026-06-01T11:59:30.000Z'],
    ['2026-06-01T11:00:00.400Z', 3_600_000, '2026-06-01T11:00:00.000Z'], // exactly the grace
  ] as const)('runAt %s, grace %s -> %s', (runAt, ms, expected) => {
    const due = dueOneOff(once(runAt), { ms, from: 'job' }, NOW);
    if (expected === undefined) expect(due).toBeUndefined();
    else expect(due?.at.toISOString()).toBe(expected);
  });

  it('a recurring trigger is never due', () => {
    expect(dueOneOff(compileTrigger({ cron: '* * * * *' }, 'UTC'), { ms: 0, from: 'job' }, NOW)).toBe(
      undefined,
    );
  });
});

describe('dueOneOff: a runAt later than the grace is refused, saying how late and what would accept it', () => {
  it.each([
    [
      '2026-06-01T11:00:00Z',
      { ms: 600_000, from: 'job' as const },
      "runAt 2026-06-01T11:00:00.000Z is 1h in the past and the job's misfireGraceTime is 10m: give a runAt in the future, or pass misfireGraceTime: '2h' or more (on the job, or on the PipelineScheduler) to run it at once",
    ],
    [
      '2026-06-01T11:58:00Z',
      { ms: 30_000, from: 'scheduler' as const },
      "runAt 2026-06-01T11:58:00.000Z is 2m in the past and the scheduler's misfireGraceTime is 30s: give a runAt in the future, or pass misfireGraceTime: '3m' or more (on the job, or on the PipelineScheduler) to run it at once",
    ],
    [
      '2026-06-01T11:59:50Z',
      { ms: undefined, from: 'scheduler' as const },
      "runAt 2026-06-01T11:59:50.000Z is 10s in the past and neither the job nor the scheduler sets misfireGraceTime (without it a runAt may be 1s late): give a runAt in the future, or pass misfireGraceTime: '12s' or more (on the job, or on the PipelineScheduler) to run it at once",
    ],
    [
      '2025-05-30T10:00:00Z',
      { ms: 3_600_000, from: 'job' as const },
      "runAt 2025-05-30T10:00:00.000Z is 367d 2h in the past and the job's misfireGraceTime is 1h: give a runAt in the future, or pass misfireGraceTime: '368d' or more (on the job, or on the PipelineScheduler) to run it at once",
    ],
  ])('runAt %s', (runAt, grace, message) => {
    let error: unknown;
    try {
      dueOneOff(once(runAt), grace, NOW);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RunAtInPastError);
    expect(error).toMatchObject({ code: 'INVALID_TRIGGER', field: 'runAt', message });
    expect((error as RunAtInPastError).lateMs).toBe(NOW.getTime() - new Date(runAt).getTime());
  });

  it('the suggested grace is accepted by misfireGraceTime and covers the lateness', () => {
    const error = (() => {
      try {
        dueOneOff(once('2026-06-01T11:59:17.250Z'), { ms: 1_000, from: 'job' }, NOW);
      } catch (err) {
        return err as RunAtInPastError;
      }
      throw new Error('not refused');
    })();
    const suggested = /misfireGraceTime: '([^']+)'/.exec(error.message)?.[1];
    expect(suggested).toBe('45s');
    const ms = compileTrigger({ every: suggested! }, 'UTC').spec.intervals?.[0]?.every;
    expect(dueOneOff(once('2026-06-01T11:59:17.250Z'), { ms: ms as number, from: 'job' }, NOW)).toBeDefined();
  });
});

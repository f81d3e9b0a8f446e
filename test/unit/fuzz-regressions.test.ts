import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, TemporalFlowError } from '../../src/errors';
import { checkArgs, checkJobFields, splitOptions } from '../../src/client/jobs/store/job-options';
import { pipeline } from '../../src/pipeline/builder';
import { parseDuration } from '../../src/parse/duration';
import { PipelineSpecError, UnknownStepError } from '../../src/pipeline/errors';
import { parseInstant } from '../../src/parse/instant';
import { compileTrigger } from '../../src/schedule/compile-trigger';
import { InvalidPolicyError, InvalidTriggerError } from '../../src/schedule/errors';
import { compilePolicies, type JobPolicies } from '../../src/schedule/policies';
import { previewTrigger } from '../../src/schedule/preview';
import type { Trigger } from '../../src/schedule/trigger-types';

/*
 * One test per bug the fuzz tests (fuzz-*.test.ts) found, named for the bug, with the input that showed it.
 */

/** The `field` of the error `f` throws (fails when it throws none, or an untyped one). */
function fieldOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(TemporalFlowError);
    return (err as { field?: string }).field;
  }
  throw new Error('expected an error');
}

const trigger = (t: unknown) => () => compileTrigger(t as Trigger, 'UTC');
const policies = (p: unknown) => () => compilePolicies(p as JobPolicies);

describe('bugs found by fuzzing', () => {
  it('UnknownStepError had no field: it now names where the step was given', () => {
    const p = pipeline('x', { steps: ['a', 'b'] }).step('a');
    expect(fieldOf(() => p.step('c'))).toBe('steps[1]');
    expect(fieldOf(() => p.step('a', { compensate: 'z' }))).toBe('steps[1].compensate');
    expect(fieldOf(() => p.onFailure('z'))).toBe('onFailure');
    expect(() => p.onFailure({ __proto__: null } as never)).toThrow(UnknownStepError);
  });

  it('builder options that are null or not objects threw TypeError: now a PipelineSpecError', () => {
    expect(() => pipeline('x', null as never)).toThrow(
      new PipelineSpecError(
        'options',
        "invalid pipeline: options: pipeline options must be an object such as { timeout: '1h' }, got null",
      ),
    );
    expect(() => pipeline('x').step('a', null as never)).toThrow(
      "invalid pipeline: steps[0]: step options must be an object such as { timeout: '30s' }, got null",
    );
    expect(fieldOf(() => pipeline('x').map('a', null as never))).toBe('steps[0]');
    expect(fieldOf(() => pipeline('x').parallel([null as never]))).toBe('steps[0].branches[0][0]');
    expect(() => pipeline('x').step('a', { retry: 'x' as never })).toThrow(
      'invalid pipeline: steps[0].retry: retry options must be an object such as { maximumAttempts: 3 }, got "x"',
    );
  });

  it('a backoffCoefficient that is an object threw TypeError on comparison', () => {
    expect(
      fieldOf(() =>
        pipeline('x').step('a', { retry: { backoffCoefficient: [Object.create(null)] as never } }),
      ),
    ).toBe('steps[0].retry.backoffCoefficient');
  });

  it('an unknown option with an empty name gave an empty field', () => {
    expect(fieldOf(() => pipeline('x', { '': 1 } as never))).toBe('""');
    expect(fieldOf(() => splitOptions({ '': 1 } as never))).toBe('""');
  });

  it('parseDuration accepted 0.4 ms (5e-324) as "greater than zero" and returned 0', () => {
    expect(() => parseDuration(5e-324, 'timeout')).toThrow('timeout 5e-324 must be greater than zero');
    expect(() => parseDuration(0.4, 'timeout')).toThrow('timeout 0.4 must be greater than zero');
    expect(parseDuration(0.4, 'offset', { allowZero: true })).toBe(0);
  });

  it('durations past what Temporal keeps were accepted (2^53 ms; the server rejects intervals > 10,000 years)', () => {
    expect(() => parseDuration(2 ** 53, 'timeout')).toThrow(
      /^timeout 9007199254740992 is longer than 100 years/,
    );
    expect(() => trigger({ every: '200y' })()).toThrow(InvalidTriggerError);
    expect(() => trigger({ weeks: 1e9 })()).toThrow(
      'an interval must be at most 100 years, got 604800000000000000 ms',
    );
    expect(parseDuration('100y', 'timeout')).toBe(3_155_760_000_000);
  });

  it('a BigInt or a circular value in a message threw TypeError while building the error', () => {
    expect(() => parseDuration(10n, 'timeout')).toThrow('timeout a bigint is not a duration');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => parseDuration(circular as never, 'timeout')).toThrow(InvalidArgumentError);
    expect(() => trigger({ cron: '* * * * *', timezone: 10n })()).toThrow(InvalidTriggerError);
  });

  it('instants that do not exist rolled over ("2027-02-30" became March 2), and "2 Z" was read as 2001', () => {
    for (const bad of [
      '2027-02-30T00:00:00Z',
      '2 Z',
      'March 7 2027 10:00 Z',
      '2027-01-01T25:00:00Z',
      '+275760-09-13T00:00:00Z',
    ]) {
      expect(() => parseInstant(bad, 'at'), bad).toThrow(InvalidArgumentError);
      expect(fieldOf(trigger({ runAt: bad })), bad).toBe('runAt');
      expect(fieldOf(policies({ startAt: bad })), bad).toBe('startAt');
      expect(
        fieldOf(() => previewTrigger({ cron: '@daily' }, 1, { from: bad })),
        bad,
      ).toBe('from');
    }
    expect(parseInstant('2028-02-29T12:00:00+01:00', 'at').toISOString()).toBe('2028-02-29T11:00:00.000Z');
    expect(parseInstant('2027-01-01 09:30Z', 'at').toISOString()).toBe('2027-01-01T09:30:00.000Z');
    expect(() => parseInstant(new Date(8.64e15), 'at')).toThrow(InvalidArgumentError);
  });

  it('a step past 2^32 wrapped to 1 on the server ("*/4294967297" fired every minute; preview said hourly)', () => {
    expect(trigger({ cron: '*/4294967297 * * * *' })).toThrow(
      'invalid cron "*/4294967297 * * * *": minute field step "/4294967297" is too large: Temporal keeps steps as 32-bit integers (at most 2147483647); a step of 60 or more matches only the first value, so write that value',
    );
    expect(fieldOf(trigger({ calendar: { minute: { start: 0, end: 59, step: 4294967297 } } }))).toBe(
      'calendar.minute',
    );
    expect(() => trigger({ cron: '*/2147483647 * * * *' })()).not.toThrow();
  });

  it('a calendar range nested 100,000 deep blew the stack; a misspelt range key was ignored', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { start: deep };
    expect(fieldOf(trigger({ calendar: { minute: deep } }))).toBe('calendar.minute');
    expect(trigger({ calendar: { minute: { start: 5, stop: 10 } } })).toThrow(
      'calendar.minute range has no option "stop": a range is { start, end, step }',
    );
  });

  it('job options and policies that are null threw TypeError; non-boolean flags were taken as truthy', () => {
    expect(fieldOf(() => splitOptions(null as never))).toBe('options');
    expect(policies(null)).toThrow(
      new InvalidPolicyError('policies', 'job policies must be an object, got null'),
    );
    expect(policies({ pauseOnFailure: 'no' })).toThrow('pauseOnFailure must be true or false, got "no"');
    expect(policies({ coalesce: 0 })).toThrow('coalesce must be true or false, got 0');
    expect(() => checkJobFields({ paused: 'no' as never })).toThrow('paused must be true or false, got "no"');
    expect(fieldOf(() => checkJobFields({ jobId: '' }))).toBe('jobId');
    expect(fieldOf(() => checkJobFields({ jobId: 'x'.repeat(201) }))).toBe('jobId');
    expect(() => checkJobFields({ note: 5 as never })).toThrow('note must be a string, got 5');
  });

  it('cron "valueOf" found Object.prototype.valueOf as an alias and threw TypeError', () => {
    for (const name of ['valueOf', 'constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(fieldOf(trigger({ cron: name })), name).toBe('cron');
    }
    expect(trigger({ calendar: { constructor: 1 } })).toThrow(
      'calendar has no field "constructor": allowed: second, minute, hour, dayOfMonth, month, dayOfWeek, year, comment',
    );
  });

  it('a cron or calendar list with holes ([,]) was accepted and preview crashed reading the missing calendar', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(fieldOf(trigger({ cron: [, '0 * * * *'] as unknown as string[] }))).toBe('cron');
    // eslint-disable-next-line no-sparse-arrays
    expect(fieldOf(trigger({ calendar: [, { hour: 1 }] }))).toMatch(/^calendar/);
    // eslint-disable-next-line no-sparse-arrays
    expect(fieldOf(trigger({ calendar: { hour: [, 2] } }))).toMatch(/^calendar/);
  });

  it('args holding a BigInt were accepted and the SDK failed to encode them when creating the schedule', () => {
    expect(() => checkArgs([0n])).toThrow(InvalidArgumentError);
    expect(() => checkArgs([0n])).toThrow(/^args must be JSON values/);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => checkArgs([cycle])).toThrow(/^args must be JSON values/);
    expect(checkArgs([1, 'a', { b: [null] }])).toEqual([1, 'a', { b: [null] }]);
  });
});

import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors';
import { UnknownStepError } from '../../src/pipeline/errors';
import { InvalidPolicyError } from '../../src/schedule/errors';
import { parseJobChanges, type ModifyJobOptions } from '../../src/client/jobs/store/job-options';

/*
 * parseJobChanges is modifyJob's one validation stop: given the worker's steps, every field of a modify
 * is checked there, before any call, and the error names the field with the text the scheduler's other
 * verbs use for it. (test/integration/scheduler-bad-input.test.ts drives the same table through
 * modifyJob on the dev server: nothing is written.)
 */

const STEPS = ['extract', 'load', 'page'];

const CASES: [
  string,
  ModifyJobOptions | Record<string, unknown>,
  new (...a: never[]) => Error,
  string | RegExp,
][] = [
  ['retries', { retries: 3 }, InvalidArgumentError, /unknown job option "retries"; allowed: maxInstances/],
  ['cron', { cron: '0 3 * * *' }, InvalidArgumentError, 'unknown job option "cron"'],
  ['note', { note: 5 }, InvalidArgumentError, 'note must be a string, got 5'],
  ['maxInstances', { maxInstances: 0 }, InvalidPolicyError, 'maxInstances'],
  ['args', { args: 'x' }, InvalidArgumentError, 'args must be an array: the arguments of the first step'],
  ['args', { args: [1n] }, InvalidArgumentError, /args must be JSON values/],
  [
    'onError',
    { onError: '' },
    InvalidArgumentError,
    'onError must be the name of an activity registered on the worker',
  ],
  ['onError', { onError: 'pager' }, UnknownStepError, 'unknown step "pager"'],
  [
    'onMissed',
    { onMissed: 'pager' },
    InvalidArgumentError,
    'onMissed "pager" is not one of the worker\'s steps',
  ],
  ['onLate', { onLate: 42, lateAfter: '5m' }, InvalidArgumentError, 'onLate must be the name of an activity'],
  [
    'onSilent.webhook.url',
    { onSilent: { webhook: { url: 'ftp://hooks.test/x' } }, expectSuccessWithin: '1h' },
    InvalidArgumentError,
    'onSilent.webhook.url must be an http(s) URL',
  ],
  [
    'onSilent.webhook.headers',
    { onSilent: { webhook: { url: 'https://hooks.test/x', headers: { a: 1 } } }, expectSuccessWithin: '1h' },
    InvalidArgumentError,
    'onSilent.webhook.headers must be an object of header names to strings',
  ],
  ['lateAfter', { onLate: 'page', lateAfter: 'soon' }, InvalidArgumentError, 'lateAfter'],
  [
    'expectSuccessWithin',
    { onSilent: 'page', expectSuccessWithin: -5 },
    InvalidArgumentError,
    'expectSuccessWithin',
  ],
];

describe('parseJobChanges: every bad field of a modify, named', () => {
  it.each(CASES)('%s', (field, changes, error, says) => {
    let thrown: unknown;
    try {
      parseJobChanges(changes, STEPS);
    } catch (err) {
      thrown = err;
    }
    expect((thrown as Error | undefined)?.constructor).toBe(error);
    expect(thrown).toMatchObject({ field });
    expect((thrown as Error).message).toMatch(says);
  });

  it('refuses options that are not an object', () => {
    expect(() => parseJobChanges(null as unknown as ModifyJobOptions, STEPS)).toThrow(
      'job options must be an object',
    );
  });

  it('checks alert targets against the steps only when they are known', () => {
    expect(parseJobChanges({ onMissed: 'pager' }, undefined).alerts).toEqual({ onMissed: 'pager' });
  });

  it('lets null remove an alert or onError, and undefined keep it, without checks', () => {
    const checked = parseJobChanges(
      { onError: null, onLate: null, lateAfter: null, onSilent: undefined, expectSuccessWithin: undefined },
      STEPS,
    );
    expect(checked.onError).toBeNull();
    expect(checked.alerts).toEqual({
      onLate: null,
      lateAfter: null,
      onSilent: undefined,
      expectSuccessWithin: undefined,
    });
  });

  it('returns the checked changes split: args, note, onError, alerts, policies', () => {
    expect(
      parseJobChanges(
        {
          args: [1, { a: 'b' }],
          note: 'n',
          onError: 'page',
          maxInstances: 2,
          onLate: { webhook: { url: 'https://hooks.test/late' } },
          lateAfter: '5m',
        },
        STEPS,
      ),
    ).toEqual({
      args: [1, { a: 'b' }],
      note: 'n',
      onError: 'page',
      alerts: { onLate: { webhook: { url: 'https://hooks.test/late' } }, lateAfter: '5m' },
      policies: { maxInstances: 2 },
    });
  });
});

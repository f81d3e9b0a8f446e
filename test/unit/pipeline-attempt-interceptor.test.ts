import { describe, expect, it } from 'vitest';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { withAttempt } from '../../src/worker/attempt-interceptor';

function marker(err: ApplicationFailure): ApplicationFailure {
  expect(err.cause).toBeInstanceOf(ApplicationFailure);
  return err.cause as ApplicationFailure;
}

describe('attempt interceptor', () => {
  it('keeps an ApplicationFailure as it was and adds the attempt under it', () => {
    const root = new Error('socket closed');
    const original = ApplicationFailure.create({
      type: 'Down',
      message: 'payment service down',
      nonRetryable: true,
      details: [{ code: 503 }],
      nextRetryDelay: 250,
      cause: root,
    });
    const out = withAttempt(original, 4) as ApplicationFailure;
    expect(out).toBeInstanceOf(ApplicationFailure);
    expect([out.type, out.message, out.nonRetryable, out.details, out.nextRetryDelay]).toEqual([
      'Down',
      'payment service down',
      true,
      [{ code: 503 }],
      250,
    ]);
    expect(out.stack).toBe(original.stack);
    const m = marker(out);
    expect([m.type, m.message, m.details]).toEqual(['TflowAttempt', 'attempt 4', [{ attempt: 4 }]]);
    expect(m.cause).toBe(root);
  });

  it('turns a plain error into the ApplicationFailure Temporal would make of it (type = error name)', () => {
    class BadInput extends Error {
      override name = 'BadInput';
    }
    const out = withAttempt(new BadInput('expected a number'), 1) as ApplicationFailure;
    expect([out.type, out.message, out.nonRetryable]).toEqual(['BadInput', 'expected a number', false]);
    expect(marker(out).details).toEqual([{ attempt: 1 }]);
  });

  it('lets cancellations and non-errors through untouched', () => {
    const cancelled = new CancelledFailure('cancelled');
    expect(withAttempt(cancelled, 2)).toBe(cancelled);
    expect(withAttempt('a string', 2)).toBe('a string');
  });
});

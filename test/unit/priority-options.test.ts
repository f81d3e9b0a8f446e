import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors';
import { pipeline } from '../../src/pipeline';
import { PipelineSpecError } from '../../src/pipeline/errors';
import { compilePriority, prioritySpecSchema } from '../../src/pipeline/priority';

/*
 * Bad priority and fairness values, at each place they are given (a pipeline, a step, and the
 * compilation a run's start and a job share): a typed error naming the option and saying what it takes.
 * test/integration/pipeline-priority.test.ts checks the start and the job through their clients.
 */

const steps = {
  async work(x: number) {
    return x;
  },
};
const asStart = (options: unknown) =>
  compilePriority(options, 'priority', (field, message) => new InvalidArgumentError(field, message));

/** The error `build` throws. */
function thrown(build: () => unknown): InvalidArgumentError {
  try {
    build();
  } catch (err) {
    if (err instanceof InvalidArgumentError) return err;
    throw err;
  }
  throw new Error('nothing thrown');
}

describe('priority options, bad input', () => {
  const bad: [string, unknown, string, string][] = [
    ['a priority above 5', { priority: 6 }, 'priority.priority', 'priority must be 1 to 5, got 6'],
    ['a priority of 0', { priority: 0 }, 'priority.priority', 'priority must be 1 to 5, got 0'],
    [
      'a fractional priority',
      { priority: 2.5 },
      'priority.priority',
      'priority must be a whole number, got 2.5',
    ],
    ['a priority as a string', { priority: '1' }, 'priority.priority', 'got "1"'],
    [
      'a weight of 0',
      { fairnessWeight: 0 },
      'priority.fairnessWeight',
      'fairnessWeight must be 0.001 to 1000, got 0',
    ],
    [
      'a negative weight',
      { fairnessWeight: -2 },
      'priority.fairnessWeight',
      'fairnessWeight must be 0.001 to 1000, got -2',
    ],
    [
      'a weight above 1000',
      { fairnessWeight: 1001 },
      'priority.fairnessWeight',
      'fairnessWeight must be 0.001 to 1000, got 1001',
    ],
    ['a weight that is not a number', { fairnessWeight: NaN }, 'priority.fairnessWeight', 'got NaN'],
    ['an empty key', { fairnessKey: '' }, 'priority.fairnessKey', 'a fairness key cannot be empty'],
    [
      'a key of 65 bytes',
      { fairnessKey: 'k'.repeat(65) },
      'priority.fairnessKey',
      'a fairness key holds at most 64 bytes',
    ],
    [
      'a key of 22 characters, 66 bytes',
      { fairnessKey: '€'.repeat(22) },
      'priority.fairnessKey',
      'a fairness key holds at most 64 bytes',
    ],
    [
      'an unknown field',
      { weight: 2 },
      'priority.weight',
      'priority has only priority, fairnessKey, fairnessWeight, got "weight"',
    ],
    [
      'not an object',
      3,
      'priority',
      "priority must be an object such as { priority: 2, fairnessKey: 'tenant-a' }, got 3",
    ],
  ];

  it.each(bad)('%s: refused on a run or job start, naming the option', (_, options, field, message) => {
    const err = thrown(() => asStart(options));
    expect(err.constructor).toBe(InvalidArgumentError);
    expect(err.field).toBe(field);
    expect(err.message).toContain(message);
  });

  it.each(bad)('%s: refused on a pipeline, naming the option', (_, options, field, message) => {
    const err = thrown(() => pipeline('p', { steps, priority: options as never }));
    expect(err).toBeInstanceOf(PipelineSpecError);
    expect(err.field).toBe(field);
    expect(err.message).toContain(message);
  });

  it.each(bad)('%s: refused on a step, naming the step and the option', (_, options, field, message) => {
    const err = thrown(() => pipeline('p', { steps }).step('work', { priority: options as never }));
    expect(err).toBeInstanceOf(PipelineSpecError);
    expect(err.field).toMatch(/^steps\[0\]\.priority/);
    expect(err.field.endsWith(field)).toBe(true);
    expect(err.message).toContain(message);
  });

  it('takes the bounds themselves, and a key of exactly 64 bytes', () => {
    expect(asStart({ priority: 1, fairnessKey: '€'.repeat(21) + 'k', fairnessWeight: 0.001 })).toEqual({
      priorityKey: 1,
      fairnessKey: '€'.repeat(21) + 'k',
      fairnessWeight: 0.001,
    });
    expect(asStart({ priority: 5, fairnessWeight: 1000 })).toEqual({ priorityKey: 5, fairnessWeight: 1000 });
    expect(asStart({})).toBeUndefined();
    expect(asStart(undefined)).toBeUndefined();
  });

  it('a spec written by hand is checked by the same schema', () => {
    expect(prioritySpecSchema.safeParse({ priorityKey: 7 }).success).toBe(false);
    expect(prioritySpecSchema.safeParse({ fairnessWeight: 0 }).success).toBe(false);
    expect(prioritySpecSchema.safeParse({ fairnessKey: 'k'.repeat(65) }).success).toBe(false);
    expect(
      prioritySpecSchema.safeParse({ priorityKey: 2, fairnessKey: 'a', fairnessWeight: 3 }).success,
    ).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import {
  parsePipelineSpec,
  pipeline,
  PipelineSpecError,
  UnknownStepError,
  activitiesOf,
  type PipelineSpec,
} from '../../src/pipeline';

const steps = {
  extract: async () => [1, 2],
  transform: async (x: number) => x,
  load: async () => 'ok',
  unload: async () => undefined,
  notify: async () => undefined,
};

function specError(fn: () => unknown): PipelineSpecError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PipelineSpecError) return err;
    throw err;
  }
  throw new Error('expected a PipelineSpecError');
}

describe('pipeline builder', () => {
  it('compiles steps, a parallel group and a map into a versioned JSON spec', () => {
    const p = pipeline('etl', { timeout: '1h', steps })
      .step('extract', { retry: { maximumAttempts: 5, initialInterval: '2s', backoffCoefficient: 2 } })
      .parallel([['transform', { step: 'load', compensate: 'unload' }], 'notify'], { id: 'fan' })
      .map('transform', { id: 'each', concurrency: 3, timeout: '5m' })
      .onFailure('notify');
    expect(p.spec).toEqual({
      version: 1,
      name: 'etl',
      timeoutMs: 3_600_000,
      steps: [
        {
          kind: 'step',
          id: 'extract',
          activity: 'extract',
          retry: { maximumAttempts: 5, initialIntervalMs: 2000, backoffCoefficient: 2 },
        },
        {
          kind: 'parallel',
          id: 'fan',
          branches: [
            [
              { kind: 'step', id: 'transform', activity: 'transform' },
              { kind: 'step', id: 'load', activity: 'load', compensate: 'unload' },
            ],
            [{ kind: 'step', id: 'notify', activity: 'notify' }],
          ],
        },
        { kind: 'map', id: 'each', activity: 'transform', startToCloseMs: 300_000, concurrency: 3 },
      ],
      onFailure: 'notify',
    } satisfies PipelineSpec);
  });

  it('round-trips through JSON and lists the activities a worker needs', () => {
    const spec = pipeline('p', { steps })
      .step('extract', { compensate: 'unload' })
      .map('transform', { id: 'each' })
      .parallel(['load', 'notify']).spec;
    expect(parsePipelineSpec(JSON.parse(JSON.stringify(spec)))).toEqual(spec);
    expect(spec.steps[1]).toEqual({ kind: 'map', id: 'each', activity: 'transform', concurrency: 10 });
    expect(spec.steps[2]!.id).toBe('parallel-2');
    expect(activitiesOf(spec)).toEqual(['extract', 'unload', 'transform', 'load', 'notify']);
  });

  it('compiles the spec once, freezes it, and recompiles after a change', () => {
    const p = pipeline('p', { steps }).step('extract');
    const first = p.spec;
    expect(p.spec).toBe(first);
    expect(Object.isFrozen(first.steps[0])).toBe(true);
    p.step('load');
    expect(p.spec).not.toBe(first);
    expect(p.spec.steps.map((s) => s.id)).toEqual(['extract', 'load']);
    expect(first.steps.map((s) => s.id)).toEqual(['extract']);
  });

  it('rejects a step name the worker does not have, at compile time and at run time', () => {
    // @ts-expect-error 'extrakt' is not one of the worker's steps
    expect(() => pipeline('p', { steps }).step('extrakt')).toThrow(UnknownStepError);
    expect(() =>
      // @ts-expect-error 'nope' is not one of the worker's steps
      pipeline('p', { steps }).parallel(['load', { step: 'nope' }]),
    ).toThrow(
      'unknown step "nope": the worker\'s steps are "extract", "transform", "load", "unload", "notify"',
    );
  });

  it.each([
    [
      'an unknown step option',
      () => pipeline('p').step('a', { retries: 3 } as never),
      'steps[0].retries',
      'invalid pipeline: steps[0].retries: unknown step option "retries"; allowed: id, retry, timeout, scheduleToClose, heartbeat, compensate, compensateRetry, rateLimit, local, taskQueue, compensateTaskQueue, priority',
    ],
    [
      'an unknown retry option',
      () =>
        pipeline('p')
          .step('a')
          .step('b', { retry: { maxAttempts: 3 } as never }),
      'steps[1].retry.maxAttempts',
      'invalid pipeline: steps[1].retry.maxAttempts: unknown retry option "maxAttempts"; allowed: maximumAttempts, initialInterval, backoffCoefficient, maximumInterval, nonRetryableErrorTypes',
    ],
    [
      'a negative timeout',
      () => pipeline('p').step('a', { timeout: -5 }),
      'steps[0].timeout',
      'steps[0].timeout -5 must be greater than zero',
    ],
    [
      'a backoff coefficient below 1',
      () => pipeline('p').step('a', { retry: { backoffCoefficient: 0.5 } }),
      'steps[0].retry.backoffCoefficient',
      'invalid pipeline: steps[0].retry.backoffCoefficient must be 1 or more, got 0.5',
    ],
    [
      'duplicate step ids',
      () => pipeline('p').step('a').parallel(['b', 'a']).spec,
      'steps[1].branches[1][0].id',
      'invalid pipeline: steps[1].branches[1][0].id: duplicate step id "a": give the repeated step its own { id }',
    ],
    [
      'an empty pipeline',
      () => pipeline('p').spec,
      'steps',
      'invalid pipeline: steps: a pipeline needs at least one step',
    ],
    [
      'a map concurrency of 0',
      () => pipeline('p').map('a', { concurrency: 0 }),
      'steps[0].concurrency',
      'invalid pipeline: steps[0].concurrency must be a whole number >= 1, got 0',
    ],
    [
      'an empty parallel group',
      () => pipeline('p').parallel([]),
      'steps[0].branches',
      'invalid pipeline: steps[0].branches: a parallel group needs at least one branch',
    ],
    [
      'a heartbeat that is not a duration',
      () => pipeline('p').parallel([{ step: 'a', heartbeat: '2 parsecs' }]),
      'steps[0].branches[0][0].heartbeat',
      `steps[0].branches[0][0].heartbeat "2 parsecs" is not a duration: write milliseconds as a number or a string such as '30s', '5m', '2h', '1d'`,
    ],
  ])('rejects %s with a PipelineSpecError naming the field', (_what, build, field, message) => {
    const err = specError(build);
    expect(err.field).toBe(field);
    expect(err.message).toBe(message);
    expect(err.code).toBe('INVALID_PIPELINE');
  });
});

describe('parsePipelineSpec (untrusted specs)', () => {
  const valid = { version: 1, name: 'p', steps: [{ kind: 'step', id: 'a', activity: 'a' }] };

  it.each([
    [
      { ...valid, steps: [{ kind: 'step', id: 'a', activity: 'a', timeoutMs: 5 }] },
      'steps[0].timeoutMs',
      'unknown option "timeoutMs"',
    ],
    [
      { ...valid, steps: [{ kind: 'step', id: 'a', activity: 'a', startToCloseMs: -1 }] },
      'steps[0].startToCloseMs',
      'must be greater than zero (a duration such as 500 or "30s")',
    ],
    [
      { ...valid, steps: [{ kind: 'step', id: 'a', activity: 'a', retry: { backoffCoefficient: 0 } }] },
      'steps[0].retry.backoffCoefficient',
      'backoffCoefficient must be 1 or more',
    ],
    [
      { ...valid, steps: [{ kind: 'map', id: 'a', activity: 'a', concurrency: 0 }] },
      'steps[0].concurrency',
      'concurrency must be 1 or more',
    ],
    [
      { ...valid, steps: [{ kind: 'parallel', id: 'g', branches: [[]] }] },
      'steps[0].branches[0]',
      'a branch needs at least one step',
    ],
    [{ ...valid, steps: [] }, 'steps', 'a pipeline needs at least one step'],
    [{ ...valid, extra: true }, 'extra', 'unknown option "extra"'],
  ])('names the field of an invalid spec (%#)', (input, field, detail) => {
    const err = specError(() => parsePipelineSpec(input));
    expect(err.field).toBe(field);
    expect(err.message).toBe(`invalid pipeline: ${field}: ${detail}`);
  });
});

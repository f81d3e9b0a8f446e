import { describe, expect, it } from 'vitest';
import { LocalStepOptionError, parsePipelineSpec, pipeline, PipelineSpecError } from '../../src/pipeline';
import { thrown } from './thrown';

const steps = {
  a: async (x: number) => x + 1,
  b: async (x: number) => x * 2,
  undo: async () => undefined,
};

describe('local steps in the builder', () => {
  it('marks a step local with { local: true }, and leaves others without the field', () => {
    const p = pipeline('mix', { steps }).step('a', { local: true, compensate: 'undo' }).step('b');
    expect(p.spec.steps).toEqual([
      { kind: 'step', id: 'a', activity: 'a', local: true, compensate: 'undo' },
      { kind: 'step', id: 'b', activity: 'b' },
    ]);
  });

  it('localSteps makes every step, branch and map local unless one says local: false', () => {
    const p = pipeline('all-local', { steps, localSteps: true })
      .step('a', { timeout: '2s', scheduleToClose: '10s', retry: { maximumAttempts: 3 } })
      .parallel(
        [
          { step: 'a', id: 'a2' },
          { step: 'b', id: 'b2', local: false },
        ],
        { id: 'fan' },
      )
      .map('b', { id: 'each', concurrency: 2 });
    expect(p.spec.steps).toEqual([
      {
        kind: 'step',
        id: 'a',
        activity: 'a',
        local: true,
        startToCloseMs: 2000,
        scheduleToCloseMs: 10_000,
        retry: { maximumAttempts: 3 },
      },
      {
        kind: 'parallel',
        id: 'fan',
        branches: [
          [{ kind: 'step', id: 'a2', activity: 'a', local: true }],
          [{ kind: 'step', id: 'b2', activity: 'b' }],
        ],
      },
      { kind: 'map', id: 'each', activity: 'b', local: true, concurrency: 2 },
    ]);
  });

  it('rejects heartbeat on a local step with LocalStepOptionError naming the step and the option', () => {
    const err = thrown(() =>
      pipeline('hb', { steps }).step('a', { id: 'fetch', local: true, heartbeat: '5s' }),
    );
    expect(err).toBeInstanceOf(LocalStepOptionError);
    expect(err).toBeInstanceOf(PipelineSpecError);
    expect(err).toMatchObject({
      step: 'fetch',
      option: 'heartbeat',
      field: 'steps[0].heartbeat',
      code: 'INVALID_LOCAL_STEP',
      message:
        'invalid pipeline: steps[0].heartbeat: step "fetch" is local, and a local activity has no heartbeat timeout: drop `heartbeat`, or make the step regular with `local: false`',
    });
  });

  it('rejects heartbeat under localSteps too, in a branch and in a map; local: false lifts it', () => {
    const inBranch = thrown(() =>
      pipeline('hb', { steps, localSteps: true })
        .step('a')
        .parallel([
          { step: 'a', id: 'a2' },
          { step: 'b', heartbeat: '1s' },
        ]),
    );
    expect(inBranch).toMatchObject({
      step: 'b',
      option: 'heartbeat',
      field: 'steps[1].branches[1][0].heartbeat',
    });
    const inMap = thrown(() => pipeline('hb', { steps, localSteps: true }).map('a', { heartbeat: '1s' }));
    expect(inMap).toBeInstanceOf(LocalStepOptionError);
    expect(inMap).toMatchObject({ step: 'a', field: 'steps[0].heartbeat' });
    const regular = pipeline('hb', { steps, localSteps: true }).step('a', { local: false, heartbeat: '1s' });
    expect(regular.spec.steps[0]).toEqual({ kind: 'step', id: 'a', activity: 'a', heartbeatMs: 1000 });
  });

  it('rejects a local or localSteps that is not a boolean', () => {
    expect(thrown(() => pipeline('x', { localSteps: 'yes' as unknown as boolean }))).toMatchObject({
      field: 'localSteps',
      message: 'invalid pipeline: localSteps must be true or false, got "yes"',
    });
    expect(thrown(() => pipeline('x').step('a', { local: 1 as unknown as boolean }))).toMatchObject({
      field: 'steps[0].local',
      message: 'invalid pipeline: steps[0].local must be true or false, got 1',
    });
  });

  it('a hand-written spec with a local step and heartbeatMs is refused by the schema', () => {
    const err = thrown(() =>
      parsePipelineSpec({
        version: 1,
        name: 'x',
        steps: [
          {
            kind: 'parallel',
            id: 'g',
            branches: [[{ kind: 'step', id: 's', activity: 's', local: true, heartbeatMs: 1000 }]],
          },
        ],
      }),
    );
    expect(err).toBeInstanceOf(PipelineSpecError);
    expect(err).toMatchObject({ field: 'steps[0].branches[0][0].heartbeatMs' });
    expect((err as Error).message).toContain('step "s" is local: a local activity has no heartbeat timeout');
  });

  it('rejects rateLimit on a local step (builder and schema): a local activity has no task queue to limit', () => {
    const err = thrown(() => pipeline('rl', { steps, localSteps: true }).step('a', { rateLimit: '5/s' }));
    expect(err).toBeInstanceOf(LocalStepOptionError);
    expect(err).toMatchObject({ step: 'a', option: 'rateLimit', field: 'steps[0].rateLimit' });
    const regular = pipeline('rl', { steps, localSteps: true }).step('a', { local: false, rateLimit: '5/s' });
    expect(regular.spec.steps[0]).toEqual({ kind: 'step', id: 'a', activity: 'a', rateLimitPerSecond: 5 });
    const spec = thrown(() =>
      parsePipelineSpec({
        version: 1,
        name: 'x',
        steps: [{ kind: 'step', id: 's', activity: 's', local: true, rateLimitPerSecond: 5 }],
      }),
    );
    expect(spec).toBeInstanceOf(PipelineSpecError);
    expect(spec).toMatchObject({ field: 'steps[0].rateLimitPerSecond' });
  });
});

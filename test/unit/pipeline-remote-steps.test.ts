import { describe, expect, it } from 'vitest';
import {
  activitiesOf,
  LocalStepOptionError,
  parsePipelineSpec,
  pipeline,
  PipelineSpecError,
  remoteTaskQueuesOf,
  UnknownStepError,
} from '../../src/pipeline';
import { rateLimitsOf } from '../../src/worker/rate-limited-workers';
import { stepQueuesOf } from '../../src/setup/step-queues-check';
import { thrown } from './thrown';

const steps = {
  fetchImage: async (url: string) => ({ url }),
  store: async (x: unknown) => x,
  unresize: async () => undefined,
};

describe('steps served on another task queue (remote steps)', () => {
  it('a step declared in remote runs on its queue; its compensation, local or remote, on its own', () => {
    const p = pipeline('images', { steps, remote: { resize: 'py-steps', unstore: 'py-steps' } })
      .step('fetchImage')
      .step('resize', { compensate: 'unresize', retry: { maximumAttempts: 3 }, heartbeat: '10s' })
      .step('store', { compensate: 'unstore' });
    expect(p.spec.steps).toEqual([
      { kind: 'step', id: 'fetchImage', activity: 'fetchImage' },
      {
        kind: 'step',
        id: 'resize',
        activity: 'resize',
        taskQueue: 'py-steps',
        compensate: 'unresize',
        retry: { maximumAttempts: 3 },
        heartbeatMs: 10_000,
      },
      {
        kind: 'step',
        id: 'store',
        activity: 'store',
        compensate: 'unstore',
        compensateTaskQueue: 'py-steps',
      },
    ]);
    // What the run's own workers must register, and the queues other workers must poll.
    expect(activitiesOf(p.spec)).toEqual(['fetchImage', 'unresize', 'store']);
    expect(remoteTaskQueuesOf(p.spec)).toEqual(['py-steps']);
  });

  it("a step's own taskQueue overrides remote; stepTaskQueue is the default of every other activity", () => {
    const p = pipeline('all-python', { stepTaskQueue: 'py', remote: { gpu: 'py-gpu' } })
      .step('a', { compensate: 'undoA' })
      .step('gpu')
      .step('b', { taskQueue: 'py-big', compensate: 'undoB', compensateTaskQueue: 'py-small' })
      .onFailure('notify');
    expect(p.spec.steps).toEqual([
      {
        kind: 'step',
        id: 'a',
        activity: 'a',
        taskQueue: 'py',
        compensate: 'undoA',
        compensateTaskQueue: 'py',
      },
      { kind: 'step', id: 'gpu', activity: 'gpu', taskQueue: 'py-gpu' },
      {
        kind: 'step',
        id: 'b',
        activity: 'b',
        taskQueue: 'py-big',
        compensate: 'undoB',
        compensateTaskQueue: 'py-small',
      },
    ]);
    expect(p.spec.onFailureTaskQueue).toBe('py');
    expect(activitiesOf(p.spec)).toEqual([]);
    expect(remoteTaskQueuesOf(p.spec)).toEqual(['py', 'py-big', 'py-gpu', 'py-small']);
  });

  it('parallel branches, maps and child compensations take the declared queues too', () => {
    const child = pipeline('child', { remote: { thumb: 'py' } }).step('thumb');
    const p = pipeline('fan', { steps, remote: { thumb: 'py', unchild: 'py' } })
      .parallel([['fetchImage', 'thumb'], { step: 'store' }])
      .map('thumb', { id: 'each' })
      .pipeline('sub', child, { compensate: 'unchild' });
    expect(p.spec.steps[0]).toMatchObject({
      branches: [
        [{ activity: 'fetchImage' }, { activity: 'thumb', taskQueue: 'py' }],
        [{ activity: 'store' }],
      ],
    });
    expect(p.spec.steps[0]).not.toHaveProperty('branches.0.0.taskQueue');
    expect(p.spec.steps[1]).toMatchObject({ kind: 'map', activity: 'thumb', taskQueue: 'py' });
    expect(p.spec.steps[2]).toMatchObject({
      kind: 'pipeline',
      compensate: 'unchild',
      compensateTaskQueue: 'py',
    });
  });

  it('a spec without remote steps is what it was: no new field is written (same commands on replay)', () => {
    const p = pipeline('plain', { steps }).step('fetchImage', { compensate: 'unresize' }).onFailure('store');
    expect(JSON.stringify(p.spec)).not.toMatch(/TaskQueue|taskQueue/);
  });

  it('with steps, an undeclared step is still a typo, even with a taskQueue, and the error says how to declare it', () => {
    const err = thrown(() =>
      pipeline('typo', { steps }).step('resize' as 'store', { taskQueue: 'py-steps' }),
    );
    expect(err).toBeInstanceOf(UnknownStepError);
    expect((err as Error).message).toBe(
      `unknown step "resize": the worker's steps are "fetchImage", "store", "unresize"; a step served by another worker is declared in the pipeline's remote, e.g. { remote: { "resize": 'py-steps' } }`,
    );
    const withRemote = thrown(() =>
      pipeline('typo', { steps, remote: { resize: 'py-steps' } }).step('resise' as 'resize'),
    );
    expect((withRemote as Error).message).toBe(
      `unknown step "resise": the worker's steps are "fetchImage", "store", "unresize", and the steps served elsewhere (remote) "resize"`,
    );
    expect((withRemote as UnknownStepError).field).toBe('steps[0]');
    // A compensation is checked the same way.
    expect(() =>
      pipeline('typo', { steps, remote: { resize: 'py' } }).step('resize', {
        compensate: 'unresise' as 'store',
      }),
    ).toThrow(UnknownStepError);
  });

  it('refuses bad declarations and a remote queue on a local step, naming the field', () => {
    expect(() => pipeline('x', { remote: ['resize'] as unknown as Record<string, string> })).toThrow(
      `invalid pipeline: remote must map each step served elsewhere to its task queue, e.g. { resize: 'py-steps' }, got ["resize"]`,
    );
    expect(() => pipeline('x', { remote: { resize: '' } })).toThrow(
      'invalid pipeline: remote.resize must be a task queue name such as \'py-steps\' (non-empty, no surrounding spaces), got ""',
    );
    expect(() => pipeline('x', { stepTaskQueue: ' py ' })).toThrow(PipelineSpecError);
    const local = thrown(() => pipeline('x', { remote: { resize: 'py' } }).step('resize', { local: true }));
    expect(local).toBeInstanceOf(LocalStepOptionError);
    expect((local as LocalStepOptionError).field).toBe('steps[0].taskQueue');
    // localSteps leaves remote steps regular.
    expect(
      pipeline('x', { localSteps: true, remote: { resize: 'py' } }).step('resize').spec.steps[0],
    ).toEqual({
      kind: 'step',
      id: 'resize',
      activity: 'resize',
      taskQueue: 'py',
    });
    expect(() => pipeline('x').step('a', { compensateTaskQueue: 'py' })).toThrow(
      "invalid pipeline: steps[0].compensateTaskQueue needs a compensate step, e.g. { compensate: 'undoResize', compensateTaskQueue: 'py-steps' }",
    );
  });

  it('a hand-written spec with a local step on a task queue is refused', () => {
    expect(() =>
      parsePipelineSpec({
        version: 1,
        name: 'x',
        steps: [{ kind: 'step', id: 'a', activity: 'a', local: true, taskQueue: 'py' }],
      }),
    ).toThrow(
      /step "a" is local: a local activity runs in the worker that runs the workflow, on no task queue/,
    );
  });

  it("rate limits: a remote step's limit is its queue's workers', not this worker's; the doctor looks for its companion queue", () => {
    const p = pipeline('limited', { steps, remote: { resize: 'py' } })
      .step('resize', { rateLimit: '2/s' })
      .step('store', { rateLimit: '5/s' });
    expect([...rateLimitsOf([p], steps)]).toEqual([['store', 5]]);
    expect(Object.fromEntries([...stepQueuesOf(p.spec, 'pipelines')].map(([q, a]) => [q, [...a]]))).toEqual({
      'py--rate--resize': ['resize'],
      'pipelines--rate--store': ['store'],
    });
  });
});

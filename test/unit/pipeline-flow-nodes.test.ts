import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyValue, fuzzParams, mutatedObject, trickyString, typedOutcome } from '../helpers/fuzz';
import {
  activitiesOf,
  parsePipelineSpec,
  pipeline,
  PipelineSpecError,
  UnknownStepError,
} from '../../src/pipeline';
import { InvalidArgumentError } from '../../src/errors';
import { checkWorkflowIdTemplate, renderWorkflowId } from '../../src/pipeline/workflow-id';
import { parseSignalPayload } from '../../src/cli/runs-signal-command';
import { checkJobFields, workflowIdPrefix } from '../../src/client/jobs/store/job-options';

const steps = {
  extract: async () => [1, 2],
  load: async () => 'ok',
  unload: async () => undefined,
  report: async () => undefined,
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

describe('child pipelines, waiting steps and chains in the spec', () => {
  const child = pipeline('load-all', { steps }).step('load');
  const report = pipeline('report', { steps }).step('report');

  it('compiles each node kind and the chains, and round-trips through parsePipelineSpec', () => {
    const p = pipeline('etl', { steps })
      .step('extract')
      .pipeline('loading', child, { compensate: 'unload', compensateRetry: { maximumAttempts: 2 } })
      .sleep('cool-down', '2h')
      .waitFor('approval', { signal: 'approve', timeout: '1d', onTimeout: 'continue' })
      .waitFor('go', { signal: 'go' })
      .then(report, { delay: '5m', jobId: 'report-{date}' })
      .then(report);
    expect(p.spec.steps.slice(1)).toEqual([
      {
        kind: 'pipeline',
        id: 'loading',
        pipeline: child.spec,
        compensate: 'unload',
        compensateRetry: { maximumAttempts: 2 },
      },
      { kind: 'sleep', id: 'cool-down', durationMs: 7_200_000 },
      { kind: 'waitFor', id: 'approval', signal: 'approve', timeoutMs: 86_400_000, onTimeout: 'continue' },
      { kind: 'waitFor', id: 'go', signal: 'go', onTimeout: 'fail' },
    ]);
    expect(p.spec.then).toEqual([
      { pipeline: report.spec, delayMs: 300_000, workflowId: 'report-{date}' },
      { pipeline: report.spec },
    ]);
    expect(parsePipelineSpec(JSON.parse(JSON.stringify(p.spec)))).toEqual(p.spec);
    expect(activitiesOf(p.spec).sort()).toEqual(['extract', 'load', 'report', 'unload']);
  });

  it("keeps a child's step ids apart from the parent's, but node ids are unique in the parent", () => {
    expect(() => pipeline('p', { steps }).step('load').pipeline('sub', child).spec).not.toThrow();
    expect(specError(() => pipeline('p', { steps }).step('load').sleep('load', 10).spec).message).toBe(
      'invalid pipeline: steps[1].id: duplicate step id "load": give the repeated step its own { id }',
    );
  });

  it('refuses bad options, naming the field', () => {
    const base = () => pipeline('p', { steps }).step('extract');
    expect(specError(() => base().sleep('nap', '2 parsecs')).field).toBe('steps[1].duration');
    expect(specError(() => base().waitFor('w', { signal: 'ok', onTimeout: 'retry' as 'fail' })).message).toBe(
      `invalid pipeline: steps[1].onTimeout must be 'fail' or 'continue', got "retry"`,
    );
    expect(specError(() => base().waitFor('w', { signal: 'ok', timout: '1h' } as never)).message).toBe(
      'invalid pipeline: steps[1].timout: unknown waitFor option "timout"; allowed: signal, timeout, onTimeout',
    );
    expect(specError(() => base().waitFor('w', {} as never)).field).toBe('steps[1].signal');
    expect(specError(() => base().waitFor('w', { signal: 'a b' }).spec).message).toBe(
      'invalid pipeline: steps[1].signal: a signal name uses only letters, digits, _ $ . : -',
    );
    expect(specError(() => base().sleep('', 10)).field).toBe('steps[1].id');
    expect(specError(() => base().then(report, { jobId: 'r-{day}' })).message).toBe(
      'then[0].jobId: unknown placeholder "{day}" in "r-{day}"; allowed here: {pipeline}, {date}, {time}, {uuid}, {run}',
    );
    expect(specError(() => base().then(report, { delay: -1 })).field).toBe('then[0].delay');
    expect(() => base().pipeline('sub', child, { compensate: 'unlaod' as never })).toThrow(UnknownStepError);
    expect(specError(() => base().pipeline('sub', child, 'x' as never)).message).toBe(
      `invalid pipeline: steps[1]: child pipeline options must be an object such as { compensate: 'undoImport' }, got "x"`,
    );
  });

  it('validates a nested spec from JSON, pointing into the child', () => {
    const spec = JSON.parse(JSON.stringify(pipeline('p', { steps }).pipeline('sub', child).spec)) as {
      steps: { pipeline: { steps: { retry?: unknown }[] } }[];
    };
    spec.steps[0]!.pipeline.steps[0]!.retry = { maximumAttempts: -1 };
    expect(specError(() => parsePipelineSpec(spec)).field).toBe(
      'steps[0].pipeline.steps[0].retry.maximumAttempts',
    );
  });
});

describe('workflow id templates', () => {
  const values = {
    pipeline: 'etl',
    now: new Date('2026-03-29T01:02:03.456Z'),
    uuid: () => 'u-1',
    run: 'parent-7',
  };
  it.each([
    ['etl-{date}', 'etl-2026-03-29'],
    ['{pipeline}-{date}', 'etl-2026-03-29'],
    ['{pipeline}-{time}', 'etl-20260329T010203Z'],
    ['{pipeline}-{uuid}', 'etl-u-1'],
    ['{run}-next', 'parent-7-next'],
    ['plain-id', 'plain-id'],
  ])('renders %s as %s', (template, expected) => {
    expect(renderWorkflowId(template, values)).toBe(expected);
  });

  it('refuses unknown placeholders, braces left open and blank templates', () => {
    const check = (t: unknown) => () =>
      checkWorkflowIdTemplate(t, ['pipeline', 'date'], 'workflowId', InvalidArgumentError);
    expect(check('{pipeline}-{uuid}')).toThrow(
      'workflowId: unknown placeholder "{uuid}" in "{pipeline}-{uuid}"; allowed here: {pipeline}, {date}',
    );
    expect(check('etl-{date')).toThrow('workflowId: unbalanced brace in "etl-{date"');
    expect(check(' ')).toThrow('workflowId must be a non-blank workflow id (template)');
    expect(check('{pipeline}-{date}')()).toEqual(['pipeline', 'date']);
  });
});

describe('tflow runs signal payload', () => {
  it.each([
    ['{"ok":true}', { ok: true }],
    ['42', 42],
    ['"quoted"', 'quoted'],
    ['looks good', 'looks good'],
    [undefined, undefined],
  ])('reads %s', (text, expected) => {
    expect(parseSignalPayload(text)).toEqual(expected);
  });
});

describe("a job's workflowId template", () => {
  const check = (workflowId: string) => () => checkJobFields({ workflowId });
  it('accepts {job} and {pipeline}; refuses what would be the same in every run, or shared by two jobs', () => {
    expect(check('nightly/{job}')).not.toThrow();
    expect(check('{pipeline}.{job}')).not.toThrow();
    expect(check('etl-{date}')).toThrow(
      `workflowId: {date} cannot be used in a job's workflowId: it is rendered once, when the job is written, and would be the same in every run; Temporal appends each run's nominal time itself (e.g. "-2026-12-01T02:00:00Z"), so leave it out, e.g. "etl-{job}"`,
    );
    expect(check('{job}-{uuid}')).toThrow(/\{uuid\} cannot be used .* e\.g\. "\{job\}"$/);
    expect(check('{pipeline}')).toThrow(
      'workflowId: "{pipeline}" has no {job}: two jobs with it would give their runs at the same time the same workflow id, and Temporal would refuse one; add {job}, e.g. "{pipeline}-{job}"',
    );
    expect(check('{run}')).toThrow(InvalidArgumentError);
    expect(workflowIdPrefix('etl-nightly', 'etl', 'nightly/{pipeline}/{job}')).toBe(
      'nightly/etl/etl-nightly',
    );
    expect(workflowIdPrefix('etl-nightly', 'etl', undefined)).toBe('etl-nightly');
  });
});

describe('fuzz: the new builder calls with anything give a typed error with a field, or a valid spec', () => {
  it('sleep, waitFor, pipeline and then', () => {
    const child = pipeline('child', { steps }).step('load');
    const id = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('a', 'b', 'nap') }, trickyString, anyValue);
    const duration = fc.oneof(fc.constantFrom('1s', 500, '2h', 0, -1, '1 parsec'), anyValue);
    const waitOptions = fc.oneof(
      {
        weight: 3,
        arbitrary: mutatedObject(
          fc.record(
            {
              signal: fc.oneof(fc.constantFrom('approve', 'a b', ''), trickyString),
              timeout: duration,
              onTimeout: fc.constantFrom('fail', 'continue', 'retry'),
            },
            { requiredKeys: ['signal'] },
          ),
        ),
      },
      anyValue,
    );
    const thenOptions = fc.oneof(
      fc.record(
        {
          delay: duration,
          jobId: fc.oneof(fc.constantFrom('r-{date}', '{run}-{uuid}', 'x-{day}', 'x{', ''), trickyString),
        },
        { requiredKeys: [] },
      ),
      anyValue,
    );
    const op = fc.oneof(
      fc.record({ op: fc.constant('sleep' as const), id, arg: duration }),
      fc.record({ op: fc.constant('waitFor' as const), id, arg: waitOptions }),
      fc.record({
        op: fc.constant('pipeline' as const),
        id,
        arg: fc.oneof(fc.record({ compensate: fc.constantFrom('unload', 'nope') }), anyValue),
      }),
      fc.record({ op: fc.constant('then' as const), id, arg: thenOptions }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 4 }), (ops) => {
        const out = typedOutcome(() => {
          const p = pipeline('fuzz', { steps }).step('extract');
          for (const o of ops) {
            if (o.op === 'sleep') p.sleep(o.id as string, o.arg);
            else if (o.op === 'waitFor') p.waitFor(o.id as string, o.arg as never);
            else if (o.op === 'pipeline') p.pipeline(o.id as string, child, o.arg as never);
            else p.then(child, o.arg as never);
          }
          return p.spec;
        });
        if (out.ok) expect(parsePipelineSpec(JSON.parse(JSON.stringify(out.value)))).toEqual(out.value);
      }),
      fuzzParams(500),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pipeline, toPipelineSpec } from '../../src/pipeline/builder';
import { InvalidArgumentError } from '../../src/errors';
import { parseDuration } from '../../src/parse/duration';
import { PipelineSpecError } from '../../src/pipeline/errors';
import {
  activitiesOf,
  parsePipelineSpec,
  PIPELINE_SPEC_VERSION,
  type PipelineSpec,
} from '../../src/pipeline/spec';
import { anyValue, fuzzParams, mutated, mutatedObject, trickyString, typedOutcome } from '../helpers/fuzz';

/*
 * Fuzzed pipeline input: whatever a pipeline spec, a builder call or a duration is given, the answer is a
 * valid result or a typed error with a `field` (a PipelineSpecError or UnknownStepError), never a crash,
 * never a hang; and what is accepted is JSON-safe, as it travels in each run's input.
 */

const stepName = fc.oneof(
  fc.constantFrom('extract', 'load', 'a.b-c', '$x', '_y', 'transform'),
  fc.stringMatching(/^[A-Za-z_$][\w$.-]{0,12}$/),
);
const ms = fc.integer({ min: 1, max: 7 * 86_400_000 });
const retrySpec = fc.record(
  {
    maximumAttempts: fc.nat({ max: 10 }),
    initialIntervalMs: ms,
    backoffCoefficient: fc.double({ min: 1, max: 10, noNaN: true }),
    maximumIntervalMs: ms,
    nonRetryableErrorTypes: fc.array(fc.string({ minLength: 1, maxLength: 10 }), { maxLength: 3 }),
  },
  { requiredKeys: [] },
);
const activity = (id: string) =>
  fc
    .record(
      {
        activity: stepName,
        retry: retrySpec,
        startToCloseMs: ms,
        scheduleToCloseMs: ms,
        heartbeatMs: ms,
        compensate: stepName,
      },
      { requiredKeys: ['activity'] },
    )
    .map((fields) => ({ id, ...fields }));

const branchStep = (id: string) => activity(id).map((a) => ({ kind: 'step' as const, ...a }));
const branch = (id: string) =>
  fc
    .integer({ min: 1, max: 2 })
    .chain((n) => fc.tuple(...Array.from({ length: n }, (_, s) => branchStep(`${id}-${s}`))));
const node = (kind: 'step' | 'map' | 'parallel', i: number) => {
  if (kind === 'step') return branchStep(`s${i}`);
  if (kind === 'map') {
    return fc
      .tuple(activity(`m${i}`), fc.integer({ min: 1, max: 50 }))
      .map(([a, concurrency]) => ({ kind, ...a, concurrency }));
  }
  return fc
    .integer({ min: 1, max: 3 })
    .chain((n) => fc.tuple(...Array.from({ length: n }, (_, b) => branch(`p${i}-${b}`))))
    .map((branches) => ({ kind, id: `g${i}`, branches }));
};

/** A valid spec: steps, map nodes and parallel groups with unique ids. */
const validSpec: fc.Arbitrary<PipelineSpec> = fc
  .record(
    {
      name: fc.string({ minLength: 1, maxLength: 30 }),
      timeoutMs: ms,
      onFailure: stepName,
      kinds: fc.array(fc.constantFrom('step' as const, 'map' as const, 'parallel' as const), {
        minLength: 1,
        maxLength: 4,
      }),
    },
    { requiredKeys: ['name', 'kinds'] },
  )
  .chain(({ kinds, ...rest }) =>
    fc
      .tuple(...kinds.map((kind, i) => node(kind, i)))
      .map((steps) => ({ version: PIPELINE_SPEC_VERSION, ...rest, steps })),
  );

const duration = fc.oneof(
  fc.integer(),
  fc.double(),
  fc
    .tuple(
      fc.double({ min: -1e6, max: 1e12, noNaN: true }),
      fc.constantFrom('', 'ms', 's', 'm', 'h', 'd', 'w', 'y', ' days', 'sec', 'parsecs'),
    )
    .map(([n, u]) => `${n}${u}`),
  mutated(fc.constantFrom('30s', '5m', '2h', '1d', '1 day', '500ms', '1.5h')),
  trickyString,
  anyValue,
);

function expectJsonSafe(spec: PipelineSpec): void {
  const copy = JSON.parse(JSON.stringify(spec)) as unknown;
  expect(copy).toEqual(spec);
  expect(parsePipelineSpec(copy)).toEqual(spec);
}

describe('fuzz: pipeline specs, builder calls and durations give a result or a typed error', () => {
  it('parsePipelineSpec accepts every generated valid spec, unchanged and JSON-safe', () => {
    fc.assert(
      fc.property(validSpec, (spec) => {
        const out = typedOutcome(() => parsePipelineSpec(spec));
        expect(out.ok).toBe(true);
        if (out.ok) expectJsonSafe(out.value as PipelineSpec);
      }),
      fuzzParams(300),
    );
  });

  it('parsePipelineSpec on mutated specs and on anything: a PipelineSpecError with a field, or a JSON-safe spec', () => {
    fc.assert(
      fc.property(fc.oneof({ weight: 4, arbitrary: mutatedObject(validSpec) }, anyValue), (input) => {
        const out = typedOutcome(() => parsePipelineSpec(input));
        if (!out.ok) expect(out.error).toBeInstanceOf(PipelineSpecError);
        else {
          expectJsonSafe(out.value as PipelineSpec);
          expect(() => activitiesOf(out.value as PipelineSpec)).not.toThrow();
        }
      }),
      fuzzParams(1000),
    );
  });

  it('parseDuration: whole milliseconds >= 0, or an InvalidArgumentError naming the field', () => {
    fc.assert(
      fc.property(duration, fc.boolean(), (input, allowZero) => {
        const out = typedOutcome(() => parseDuration(input, 'retry.initialInterval', { allowZero }));
        if (!out.ok) {
          expect(out.error).toBeInstanceOf(InvalidArgumentError);
          expect((out.error as InvalidArgumentError).field).toBe('retry.initialInterval');
        } else {
          const n = out.value as number;
          expect(Number.isSafeInteger(n) && n >= (allowZero ? 0 : 1)).toBe(true);
        }
      }),
      fuzzParams(1000),
    );
  });

  const validStepOptions = fc.record(
    {
      id: fc.string({ minLength: 1, maxLength: 10 }),
      retry: fc.record(
        {
          maximumAttempts: fc.nat({ max: 5 }),
          initialInterval: fc.constantFrom('1s', 500),
          backoffCoefficient: fc.constant(2),
        },
        { requiredKeys: [] },
      ),
      timeout: fc.constantFrom('10m', 1000, '1h'),
      scheduleToClose: fc.constantFrom('1h', 60_000),
      heartbeat: fc.constantFrom('30s', 5000),
      compensateRetry: fc.record({ maximumAttempts: fc.nat({ max: 5 }) }, { requiredKeys: [] }),
    },
    { requiredKeys: [] },
  );
  const options = fc.oneof(
    { weight: 3, arbitrary: mutatedObject(validStepOptions) },
    validStepOptions,
    anyValue,
  );
  const name = fc.oneof({ weight: 3, arbitrary: stepName }, trickyString, anyValue);
  const op = fc.oneof(
    fc.record({ op: fc.constant('step' as const), name, options }),
    fc.record({ op: fc.constant('map' as const), name, options }),
    fc.record({ op: fc.constant('onFailure' as const), name, options }),
    fc.record({
      op: fc.constant('parallel' as const),
      name,
      options: fc.oneof(fc.record({ id: fc.string({ maxLength: 5 }) }), anyValue),
      branches: fc.oneof(
        fc.array(fc.oneof(name, fc.record({ step: name }), fc.array(name, { maxLength: 2 })), {
          maxLength: 3,
        }),
        anyValue,
      ),
    }),
  );

  it('the builder, called with anything: a typed error with a field, or a JSON-safe spec', () => {
    const arb = fc.record({
      pipelineName: fc.oneof({ weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) }, anyValue),
      pipelineOptions: fc.oneof(
        fc.record({ timeout: duration }, { requiredKeys: [] }),
        fc.record({ steps: fc.array(stepName, { maxLength: 4 }) }),
        anyValue,
      ),
      ops: fc.array(op, { maxLength: 5 }),
    });
    fc.assert(
      fc.property(arb, ({ pipelineName, pipelineOptions, ops }) => {
        const out = typedOutcome(() => {
          const p = pipeline(pipelineName as string, pipelineOptions as never);
          for (const o of ops) {
            if (o.op === 'parallel') p.parallel(o.branches as never, o.options as never);
            else if (o.op === 'onFailure') p.onFailure(o.name as string);
            else p[o.op](o.name as string, o.options as never);
          }
          return toPipelineSpec(p);
        });
        if (out.ok) expectJsonSafe(out.value as PipelineSpec);
      }),
      fuzzParams(1000),
    );
  });
});

import type { Duration } from '@temporalio/common';
import { parseDuration } from '../parse/duration';
import { describeValue } from '../errors';
import { PipelineSpecError, UnknownStepError } from './errors';
import { checkKeys, checkOptionsObject, compileStep, type StepOptions } from './compile-step';
import {
  PIPELINE_SPEC_VERSION,
  parsePipelineSpec,
  type NodeSpec,
  type PipelineSpec,
  type StepSpec,
} from './spec';

/** Options of a pipeline. */
export interface PipelineOptions<Steps = unknown> {
  /** Whole-run timeout (`workflowExecutionTimeout`). @default none */
  timeout?: Duration;
  /**
   * The worker's steps object (or their names). When given, step names are checked at compile time
   * and at definition time, so a typo fails before anything is scheduled.
   */
  steps?: Steps;
  /**
   * Every step runs as a Temporal local activity unless it says `local: false`; see
   * {@link StepOptions.local} and docs/pipelines.md, "Local steps". @default false
   */
  localSteps?: boolean;
}

type StepNamesOf<Steps> = Steps extends readonly (infer N)[]
  ? N & string
  : Steps extends Record<string, unknown>
    ? keyof Steps & string
    : string;

/** A step inside a parallel branch: its name, or its name with options. */
export type BranchStep<Name extends string = string> = Name | ({ step: Name } & StepOptions<Name>);

/** Options of a parallel group. */
export interface ParallelOptions {
  /** Id of the group (used by progress, failure details and `redrive({ fromStep })`). @default `parallel-<position>` */
  id?: string;
}

/** Options of a `map` node: a step's options plus the concurrency bound. */
export interface MapOptions<Name extends string = string> extends StepOptions<Name> {
  /** At most this many items run at the same time. @default 10 */
  concurrency?: number;
}

/** Default bound of a `map` node: enough to fan out, small enough not to flood a worker. */
export const DEFAULT_MAP_CONCURRENCY = 10;

/**
 * A pipeline under construction. Each method returns the builder; {@link Pipeline.spec} holds the
 * validated, serialisable {@link PipelineSpec}.
 */
export class Pipeline<Name extends string = string> {
  private readonly nodes: NodeSpec[] = [];
  private failureHook: string | undefined;
  private compiled: PipelineSpec | undefined;

  /** @internal use {@link pipeline} */
  constructor(
    readonly name: string,
    private readonly options: { timeoutMs?: number; localSteps?: boolean },
    private readonly knownSteps: readonly string[] | undefined,
  ) {}

  /** Appends a step: it receives the previous step's result (the first step receives the run's args). */
  step(name: Name, options: StepOptions<Name> = {}): this {
    this.nodes.push(this.compileChecked(name, options, `steps[${this.nodes.length}]`));
    this.compiled = undefined;
    return this;
  }

  /**
   * Appends a parallel group: every branch receives the previous step's result, branches run at the
   * same time, and the next step receives the array of the branches' results (in branch order). A branch
   * is one step or an array of steps run in sequence.
   *
   * ```ts
   * .parallel([['resizeImage', 'uploadImage'], { step: 'indexText', retry: { maximumAttempts: 3 } }])
   * ```
   */
  parallel(branches: (BranchStep<Name> | BranchStep<Name>[])[], options: ParallelOptions = {}): this {
    const index = this.nodes.length;
    const at = `steps[${index}]`;
    checkKeys(options, ['id'], at, 'parallel');
    if (!Array.isArray(branches) || branches.length === 0) {
      throw new PipelineSpecError(
        `${at}.branches`,
        `invalid pipeline: ${at}.branches: a parallel group needs at least one branch`,
      );
    }
    const compiled = branches.map((branch, b) => {
      const list = Array.isArray(branch) ? branch : [branch];
      return list.map((ref, s) => {
        const stepAt = `${at}.branches[${b}][${s}]`;
        if (typeof ref === 'string') return this.compileChecked(ref, {}, stepAt);
        checkOptionsObject(ref, stepAt, 'step');
        const { step, ...opts } = ref;
        return this.compileChecked(step, opts, stepAt);
      });
    });
    this.nodes.push({ kind: 'parallel', id: options.id ?? `parallel-${index}`, branches: compiled });
    this.compiled = undefined;
    return this;
  }

  /**
   * Appends a fan-out: the previous step's result must be an array; the step runs once per item, at
   * most `concurrency` at a time, and the next step receives the array of results (in item order).
   */
  map(name: Name, options: MapOptions<Name> = {}): this {
    const at = `steps[${this.nodes.length}]`;
    checkOptionsObject(options, at, 'map');
    const { concurrency = DEFAULT_MAP_CONCURRENCY, ...stepOptions } = options;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new PipelineSpecError(
        `${at}.concurrency`,
        `invalid pipeline: ${at}.concurrency must be a whole number >= 1, got ${describeValue(concurrency)}`,
      );
    }
    const step = this.compileChecked(name, stepOptions, at);
    this.nodes.push({ ...step, kind: 'map', concurrency });
    this.compiled = undefined;
    return this;
  }

  /** Step run once, after compensations, when the pipeline fails for good. It receives the failure details. */
  onFailure(name: Name): this {
    this.checkKnown(name, 'onFailure');
    this.failureHook = name;
    this.compiled = undefined;
    return this;
  }

  /**
   * The validated spec, as it travels in each run's input.
   *
   * @throws PipelineSpecError when the pipeline is invalid (no steps, duplicate step ids, ...).
   */
  get spec(): PipelineSpec {
    // Compiled once per shape: a pipeline run thousands of times is validated once, not per run.
    this.compiled ??= deepFreeze(
      parsePipelineSpec({
        version: PIPELINE_SPEC_VERSION,
        name: this.name,
        ...(this.options.timeoutMs !== undefined ? { timeoutMs: this.options.timeoutMs } : {}),
        steps: this.nodes,
        ...(this.failureHook !== undefined ? { onFailure: this.failureHook } : {}),
      }),
    );
    return this.compiled;
  }

  private compileChecked(name: string, options: StepOptions, at: string): StepSpec {
    this.checkKnown(name, at);
    const step = compileStep(name, options, at, this.options.localSteps ?? false);
    if (step.compensate !== undefined) this.checkKnown(step.compensate, `${at}.compensate`);
    return step;
  }

  private checkKnown(name: string, field: string): void {
    if (this.knownSteps && !this.knownSteps.includes(name)) {
      throw new UnknownStepError(name, this.knownSteps, field);
    }
  }
}

/**
 * Starts a pipeline definition.
 *
 * ```ts
 * const etl = pipeline('nightly-etl', { timeout: '1h', steps })
 *   .step('extract', { retry: { maximumAttempts: 5 } })
 *   .step('load', { compensate: 'unload' });
 * ```
 *
 * @throws PipelineSpecError for an invalid name or option.
 */
export function pipeline<Steps = unknown>(
  name: string,
  options: PipelineOptions<Steps> = {},
): Pipeline<StepNamesOf<Steps>> {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new PipelineSpecError('name', 'invalid pipeline: name: a pipeline needs a non-empty name');
  }
  checkOptionsObject(options, '', 'pipeline');
  for (const key of Object.keys(options)) {
    if (key !== 'timeout' && key !== 'steps' && key !== 'localSteps') {
      throw new PipelineSpecError(
        key || '""',
        `invalid pipeline: unknown option "${key}"; allowed: timeout, steps, localSteps`,
      );
    }
  }
  if (options.localSteps !== undefined && typeof options.localSteps !== 'boolean') {
    throw new PipelineSpecError(
      'localSteps',
      `invalid pipeline: localSteps must be true or false, got ${describeValue(options.localSteps)}`,
    );
  }
  const timeoutMs =
    options.timeout === undefined
      ? undefined
      : parseDuration(options.timeout, 'timeout', { error: PipelineSpecError });
  return new Pipeline(
    name,
    {
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(options.localSteps ? { localSteps: true } : {}),
    },
    knownStepNames(options.steps),
  );
}

/** The worker's step names, from its steps object or a list of names; undefined when not given. */
export function knownStepNames(steps: unknown): readonly string[] | undefined {
  if (steps === undefined) return undefined;
  if (Array.isArray(steps)) return steps.map(String);
  if (typeof steps === 'object' && steps !== null) return Object.keys(steps);
  throw new PipelineSpecError(
    'steps',
    'invalid pipeline: steps must be the worker steps object or an array of names',
  );
}

/** Anything that can be run or scheduled: a builder or an already compiled spec. */
export type PipelineLike = Pipeline<string> | PipelineSpec;

/** The validated spec of a builder or of a spec object. */
export function toPipelineSpec(p: PipelineLike): PipelineSpec {
  if (p instanceof Pipeline) return p.spec;
  // A spec we compiled and froze ourselves cannot have changed since it was validated.
  return frozenSpecs.has(p) ? p : parsePipelineSpec(p);
}

const frozenSpecs = new WeakSet<object>();

function deepFreeze(spec: PipelineSpec): PipelineSpec {
  const freeze = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
    Object.values(value).forEach(freeze);
    Object.freeze(value);
  };
  freeze(spec);
  frozenSpecs.add(spec);
  return spec;
}

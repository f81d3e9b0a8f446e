import type { Duration } from '@temporalio/common';
import { parseDuration } from './duration';
import { PipelineSpecError, UnknownStepError } from './errors';
import {
  PIPELINE_SPEC_VERSION,
  parsePipelineSpec,
  type PipelineSpec,
  type RetrySpec,
  type StepSpec,
} from './spec';

/** Retry policy of a step, in Temporal's terms. Durations are milliseconds or strings such as `'2s'`. */
export interface RetryOptions {
  /** @default unlimited (Temporal's default); `1` means no retry. */
  maximumAttempts?: number;
  /** @default '1s' */
  initialInterval?: Duration;
  /** @default 2 */
  backoffCoefficient?: number;
  /** @default 100 × initialInterval */
  maximumInterval?: Duration;
  /** Error types (`ApplicationFailure.type` or the error class name) that fail the step at once. */
  nonRetryableErrorTypes?: string[];
}

/** Options of one step. */
export interface StepOptions<Name extends string = string> {
  /** Id of the step inside the pipeline, when the same activity runs twice. @default the step name */
  id?: string;
  retry?: RetryOptions;
  /** Maximum time of one attempt (`startToCloseTimeout`). @default '10m' */
  timeout?: Duration;
  /** Maximum time of the step including retries (`scheduleToCloseTimeout`). @default none */
  scheduleToClose?: Duration;
  /** Heartbeat timeout: a step that stops heartbeating for longer is retried on another worker. */
  heartbeat?: Duration;
  /** Step that undoes this one when a later step fails for good (saga). */
  compensate?: Name;
  /** Retry policy of the compensation. @default the step's own */
  compensateRetry?: RetryOptions;
}

/** Options of a pipeline. */
export interface PipelineOptions<Steps = unknown> {
  /** Whole-run timeout (`workflowExecutionTimeout`). @default none */
  timeout?: Duration;
  /**
   * The worker's steps object (or their names). When given, step names are checked at compile time
   * and at definition time, so a typo fails before anything is scheduled.
   */
  steps?: Steps;
}

type StepNamesOf<Steps> = Steps extends readonly (infer N)[]
  ? N & string
  : Steps extends Record<string, unknown>
    ? keyof Steps & string
    : string;

/**
 * A pipeline under construction. Each method returns the builder; {@link Pipeline.spec} holds the
 * validated, serialisable {@link PipelineSpec}.
 */
export class Pipeline<Name extends string = string> {
  private readonly steps: StepSpec[] = [];
  private failureHook: string | undefined;

  /** @internal use {@link pipeline} */
  constructor(
    readonly name: string,
    private readonly options: { timeoutMs?: number },
    private readonly knownSteps: readonly string[] | undefined,
  ) {}

  /** Appends a step: it receives the previous step's result (the first step receives the run's args). */
  step(name: Name, options: StepOptions<Name> = {}): this {
    const index = this.steps.length;
    const at = `steps[${index}]`;
    this.checkKnown(name);
    if (options.compensate !== undefined) this.checkKnown(options.compensate);
    const allowed = [
      'id',
      'retry',
      'timeout',
      'scheduleToClose',
      'heartbeat',
      'compensate',
      'compensateRetry',
    ];
    for (const key of Object.keys(options)) {
      if (!allowed.includes(key)) {
        throw new PipelineSpecError(
          `${at}.${key}`,
          `invalid pipeline: ${at}.${key}: unknown step option "${key}"; allowed: ${allowed.join(', ')}`,
        );
      }
    }
    const step: StepSpec = { kind: 'step', id: options.id ?? name, activity: name };
    if (options.retry) step.retry = compileRetry(options.retry, `${at}.retry`);
    if (options.timeout !== undefined) step.startToCloseMs = parseDuration(options.timeout, `${at}.timeout`);
    if (options.scheduleToClose !== undefined) {
      step.scheduleToCloseMs = parseDuration(options.scheduleToClose, `${at}.scheduleToClose`);
    }
    if (options.heartbeat !== undefined)
      step.heartbeatMs = parseDuration(options.heartbeat, `${at}.heartbeat`);
    if (options.compensate !== undefined) step.compensate = options.compensate;
    if (options.compensateRetry)
      step.compensateRetry = compileRetry(options.compensateRetry, `${at}.compensateRetry`);
    this.steps.push(step);
    return this;
  }

  /** Step run once, after compensations, when the pipeline fails for good. It receives the failure details. */
  onFailure(name: Name): this {
    this.checkKnown(name);
    this.failureHook = name;
    return this;
  }

  /**
   * The validated spec, as it travels in each run's input.
   *
   * @throws PipelineSpecError when the pipeline is invalid (no steps, duplicate step ids, ...).
   */
  get spec(): PipelineSpec {
    return parsePipelineSpec({
      version: PIPELINE_SPEC_VERSION,
      name: this.name,
      ...(this.options.timeoutMs !== undefined ? { timeoutMs: this.options.timeoutMs } : {}),
      steps: this.steps,
      ...(this.failureHook !== undefined ? { onFailure: this.failureHook } : {}),
    });
  }

  private checkKnown(name: string): void {
    if (this.knownSteps && !this.knownSteps.includes(name)) throw new UnknownStepError(name, this.knownSteps);
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
  for (const key of Object.keys(options)) {
    if (key !== 'timeout' && key !== 'steps') {
      throw new PipelineSpecError(key, `invalid pipeline: unknown option "${key}"; allowed: timeout, steps`);
    }
  }
  const timeoutMs = options.timeout === undefined ? undefined : parseDuration(options.timeout, 'timeout');
  return new Pipeline(name, timeoutMs === undefined ? {} : { timeoutMs }, knownStepNames(options.steps));
}

function knownStepNames(steps: unknown): readonly string[] | undefined {
  if (steps === undefined) return undefined;
  if (Array.isArray(steps)) return steps.map(String);
  if (typeof steps === 'object' && steps !== null) return Object.keys(steps);
  throw new PipelineSpecError(
    'steps',
    'invalid pipeline: steps must be the worker steps object or an array of names',
  );
}

function compileRetry(retry: RetryOptions, at: string): RetrySpec {
  const allowed = [
    'maximumAttempts',
    'initialInterval',
    'backoffCoefficient',
    'maximumInterval',
    'nonRetryableErrorTypes',
  ];
  for (const key of Object.keys(retry)) {
    if (!allowed.includes(key)) {
      throw new PipelineSpecError(
        `${at}.${key}`,
        `invalid pipeline: ${at}.${key}: unknown retry option; allowed: ${allowed.join(', ')}`,
      );
    }
  }
  const out: RetrySpec = {};
  if (retry.maximumAttempts !== undefined) {
    if (!Number.isInteger(retry.maximumAttempts) || retry.maximumAttempts < 0) {
      throw new PipelineSpecError(
        `${at}.maximumAttempts`,
        `invalid pipeline: ${at}.maximumAttempts must be a whole number >= 0 (0 = unlimited), got ${retry.maximumAttempts}`,
      );
    }
    out.maximumAttempts = retry.maximumAttempts;
  }
  if (retry.initialInterval !== undefined)
    out.initialIntervalMs = parseDuration(retry.initialInterval, `${at}.initialInterval`);
  if (retry.backoffCoefficient !== undefined) {
    if (!(retry.backoffCoefficient >= 1)) {
      throw new PipelineSpecError(
        `${at}.backoffCoefficient`,
        `invalid pipeline: ${at}.backoffCoefficient must be 1 or more, got ${retry.backoffCoefficient}`,
      );
    }
    out.backoffCoefficient = retry.backoffCoefficient;
  }
  if (retry.maximumInterval !== undefined)
    out.maximumIntervalMs = parseDuration(retry.maximumInterval, `${at}.maximumInterval`);
  if (retry.nonRetryableErrorTypes !== undefined)
    out.nonRetryableErrorTypes = [...retry.nonRetryableErrorTypes];
  return out;
}

/** Anything that can be run or scheduled: a builder or an already compiled spec. */
export type PipelineLike = Pipeline<string> | PipelineSpec;

/** The validated spec of a builder or of a spec object. */
export function toPipelineSpec(p: PipelineLike): PipelineSpec {
  return p instanceof Pipeline ? p.spec : parsePipelineSpec(p);
}

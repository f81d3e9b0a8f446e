import { compilePriority, type PriorityOptions } from './priority';
import type { Duration } from '@temporalio/common';
import { parseDuration } from '../parse/duration';
import { parseRate, type RateInput } from '../parse/rate';
import { describeValue } from '../errors';
import { LocalStepOptionError, PipelineSpecError } from './errors';
import type { RetrySpec, StepSpec } from './spec';

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
  /**
   * Step that undoes this one when a later step fails for good (saga). It is called with this step's
   * arguments followed by this step's result: `load(rows)` returning `ids` is undone by `unload(rows, ids)`.
   */
  compensate?: Name;
  /** Retry policy of the compensation. @default the step's own */
  compensateRetry?: RetryOptions;
  /**
   * At most this many attempts of the step start per second, across all workers and runs: `'10/s'`,
   * `'100/m'`, `'0.5/s'`, or a number per second. The step runs on a task queue of its own, which the
   * workers given this pipeline (`createWorker({ pipelines })`) poll with Temporal's task-queue rate limit.
   * @default none
   */
  rateLimit?: RateInput;
  /**
   * Task queue of the workers that serve this step, when they are not the run's own: a worker in another
   * language (docs/python-steps.md). The step is then called by name on that queue; declare it in the
   * pipeline's `remote` when the pipeline knows its `steps`. @default `remote[name]`, else the pipeline's
   * `stepTaskQueue`, else the run's task queue
   */
  taskQueue?: string;
  /** Task queue of the compensation's workers. @default `remote[compensate]`, else `stepTaskQueue`, else the run's */
  compensateTaskQueue?: string;
  /**
   * Temporal priority and fairness of this step's activity (server 1.31+), e.g. `{ priority: 1 }` for a
   * step that must not wait behind bulk work on its queue. Not for local steps. @default the run's
   */
  priority?: PriorityOptions;
  /**
   * Run the step (and its compensation) as a Temporal local activity: in the worker that runs the
   * workflow, with no task queue round trip. For short steps; no `heartbeat`. See docs/pipelines.md,
   * "Local steps". @default the pipeline's `localSteps` (false)
   */
  local?: boolean;
}

const STEP_OPTIONS = [
  'id',
  'retry',
  'timeout',
  'scheduleToClose',
  'heartbeat',
  'compensate',
  'compensateRetry',
  'rateLimit',
  'local',
  'taskQueue',
  'compensateTaskQueue',
  'priority',
] as const;

const RETRY_OPTIONS = [
  'maximumAttempts',
  'initialInterval',
  'backoffCoefficient',
  'maximumInterval',
  'nonRetryableErrorTypes',
] as const;

const EXAMPLES: Record<string, string> = {
  retry: '{ maximumAttempts: 3 }',
  parallel: "{ id: 'fan-out' }",
  pipeline: "{ timeout: '1h' }",
  'child pipeline': "{ compensate: 'undoImport' }",
  waitFor: "{ signal: 'approve', timeout: '2h' }",
  then: "{ delay: '5m' }",
};

/** A duration of a pipeline option; a bad one is a {@link PipelineSpecError} naming `field`. */
const specDuration = (value: Duration, field: string) =>
  parseDuration(value, field, { error: PipelineSpecError });

/** Rejects options that are not a plain object (null, a string, an array...), naming them as `at`. */
export function checkOptionsObject(options: unknown, at: string, what: string): asserts options is object {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    const field = at || 'options';
    throw new PipelineSpecError(
      field,
      `invalid pipeline: ${field}: ${what} options must be an object such as ${EXAMPLES[what] ?? "{ timeout: '30s' }"}, got ${describeValue(options)}`,
    );
  }
}

/** Rejects options that are not an object, and any key not in `allowed`, naming it as `at.key`. */
export function checkKeys(options: unknown, allowed: readonly string[], at: string, what: string): void {
  checkOptionsObject(options, at, what);
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      const field = at ? `${at}.${key}` : key;
      throw new PipelineSpecError(
        field,
        `invalid pipeline: ${field}: unknown ${what} option "${key}"; allowed: ${allowed.join(', ')}`,
      );
    }
  }
}

/** What a pipeline's options say of its steps: local by default, and which queue serves an activity. */
export interface StepDefaults {
  /** The pipeline's `localSteps`. @default false */
  local?: boolean;
  /** The queue of an activity that names none (`remote`, then `stepTaskQueue`); undefined: the run's own. */
  taskQueueOf?: (activity: string) => string | undefined;
}

/** A task queue option: a non-empty name without surrounding spaces (what the spec's schema accepts). */
export function checkTaskQueue(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '' || value.trim() !== value || value.length > 1000) {
    throw new PipelineSpecError(
      field,
      `invalid pipeline: ${field} must be a task queue name such as 'py-steps' (non-empty, no surrounding spaces), got ${describeValue(value)}`,
    );
  }
  return value;
}

/**
 * Compiles builder options of one activity call into the spec's fields (milliseconds, no aliases).
 * `at` is the path used in errors, e.g. `steps[2]`; `defaults` are the pipeline's (`localSteps`, `remote`,
 * `stepTaskQueue`). A step served on another queue is never local by default.
 *
 * @throws LocalStepOptionError for an option a local step cannot have (`heartbeat`, `rateLimit`, a task queue).
 */
export function compileStep(
  name: string,
  options: StepOptions,
  at: string,
  defaults: StepDefaults = {},
): StepSpec {
  checkKeys(options, STEP_OPTIONS, at, 'step');
  const step: StepSpec = { kind: 'step', id: options.id ?? name, activity: name };
  if (options.local !== undefined && typeof options.local !== 'boolean') {
    throw new PipelineSpecError(
      `${at}.local`,
      `invalid pipeline: ${at}.local must be true or false, got ${describeValue(options.local)}`,
    );
  }
  const taskQueue =
    options.taskQueue !== undefined
      ? checkTaskQueue(options.taskQueue, `${at}.taskQueue`)
      : defaults.taskQueueOf?.(name);
  const local = options.local ?? (taskQueue === undefined && (defaults.local ?? false));
  if (local && taskQueue !== undefined) {
    throw new LocalStepOptionError(
      step.id,
      'taskQueue',
      `${at}.taskQueue`,
      `and a local activity runs in the worker that runs the workflow, not on task queue "${taskQueue}": drop \`local\`, or serve the step on the run's own workers`,
    );
  }
  if (local && options.heartbeat !== undefined) {
    throw new LocalStepOptionError(
      step.id,
      'heartbeat',
      `${at}.heartbeat`,
      'and a local activity has no heartbeat timeout: drop `heartbeat`, or make the step regular with `local: false`',
    );
  }
  if (local && options.rateLimit !== undefined) {
    throw new LocalStepOptionError(
      step.id,
      'rateLimit',
      `${at}.rateLimit`,
      'and a local activity runs in the workflow worker, on no task queue a rate limit could hold: drop `rateLimit`, or make the step regular with `local: false`',
    );
  }
  if (local && options.priority !== undefined) {
    throw new LocalStepOptionError(
      step.id,
      'priority',
      `${at}.priority`,
      'and a local activity runs in the worker that runs the workflow, never waiting on a task queue for priority or fairness to order: drop `priority`, or make the step regular with `local: false`',
    );
  }
  const priority = compilePriority(
    options.priority,
    `${at}.priority`,
    (field, message) => new PipelineSpecError(field, `invalid pipeline: ${message}`),
  );
  if (priority) step.priority = priority;
  // Only `true` is written: a spec without local steps stays byte-for-byte what it was before the field.
  if (local) step.local = true;
  // Only a queue other than the run's is written: a spec without remote steps stays what it was.
  if (taskQueue !== undefined) step.taskQueue = taskQueue;
  if (options.retry) step.retry = compileRetry(options.retry, `${at}.retry`);
  if (options.timeout !== undefined) step.startToCloseMs = specDuration(options.timeout, `${at}.timeout`);
  if (options.scheduleToClose !== undefined) {
    step.scheduleToCloseMs = specDuration(options.scheduleToClose, `${at}.scheduleToClose`);
  }
  if (options.heartbeat !== undefined) step.heartbeatMs = specDuration(options.heartbeat, `${at}.heartbeat`);
  if (options.compensate !== undefined) {
    step.compensate = options.compensate;
    const compensateQueue =
      options.compensateTaskQueue !== undefined
        ? checkTaskQueue(options.compensateTaskQueue, `${at}.compensateTaskQueue`)
        : defaults.taskQueueOf?.(options.compensate);
    if (compensateQueue !== undefined) {
      if (local) {
        throw new LocalStepOptionError(
          step.id,
          'compensate',
          `${at}.compensate`,
          `and its compensation runs locally too, not on task queue "${compensateQueue}": drop \`local\`, or compensate with a step of the run's own workers`,
        );
      }
      step.compensateTaskQueue = compensateQueue;
    }
  } else if (options.compensateTaskQueue !== undefined) {
    throw new PipelineSpecError(
      `${at}.compensateTaskQueue`,
      `invalid pipeline: ${at}.compensateTaskQueue needs a compensate step, e.g. { compensate: 'undoResize', compensateTaskQueue: 'py-steps' }`,
    );
  }
  if (options.compensateRetry) {
    step.compensateRetry = compileRetry(options.compensateRetry, `${at}.compensateRetry`);
  }
  if (options.rateLimit !== undefined) {
    step.rateLimitPerSecond = parseRate(options.rateLimit, `${at}.rateLimit`, { error: PipelineSpecError });
  }
  return step;
}

/** Compiles a {@link RetryOptions} into the spec's {@link RetrySpec}. */
export function compileRetry(retry: RetryOptions, at: string): RetrySpec {
  checkKeys(retry, RETRY_OPTIONS, at, 'retry');
  const out: RetrySpec = {};
  if (retry.maximumAttempts !== undefined) {
    if (!Number.isInteger(retry.maximumAttempts) || retry.maximumAttempts < 0) {
      throw new PipelineSpecError(
        `${at}.maximumAttempts`,
        `invalid pipeline: ${at}.maximumAttempts must be a whole number >= 0 (0 = unlimited), got ${describeValue(retry.maximumAttempts)}`,
      );
    }
    out.maximumAttempts = retry.maximumAttempts;
  }
  if (retry.initialInterval !== undefined) {
    out.initialIntervalMs = specDuration(retry.initialInterval, `${at}.initialInterval`);
  }
  if (retry.backoffCoefficient !== undefined) {
    if (typeof retry.backoffCoefficient !== 'number' || !(retry.backoffCoefficient >= 1)) {
      throw new PipelineSpecError(
        `${at}.backoffCoefficient`,
        `invalid pipeline: ${at}.backoffCoefficient must be 1 or more, got ${describeValue(retry.backoffCoefficient)}`,
      );
    }
    out.backoffCoefficient = retry.backoffCoefficient;
  }
  if (retry.maximumInterval !== undefined) {
    out.maximumIntervalMs = specDuration(retry.maximumInterval, `${at}.maximumInterval`);
  }
  if (retry.nonRetryableErrorTypes !== undefined) {
    out.nonRetryableErrorTypes = [...retry.nonRetryableErrorTypes];
  }
  return out;
}

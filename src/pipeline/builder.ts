import { compileConcurrency, type PipelineConcurrency, type WhenFull } from './concurrency';
import { compileFlowControl, type FlowControlOptions, type PipelineFlowControl } from './flow-control';
import { compilePriority, type PriorityOptions, type PrioritySpec } from './priority';
import type { Duration } from '@temporalio/common';
import { parseDuration } from '../parse/duration';
import { describeValue } from '../errors';
import { PipelineSpecError, UnknownStepError } from './errors';
import {
  checkKeys,
  checkOptionsObject,
  checkTaskQueue,
  compileStep,
  type StepDefaults,
  type StepOptions,
} from './compile-step';
import {
  PIPELINE_SPEC_VERSION,
  parsePipelineSpec,
  type ChainSpec,
  type NodeSpec,
  type PipelineSpec,
  type StepSpec,
} from './spec';
import { compileChain, compileChild, compileSleep, compileWaitFor } from './compile-flow-nodes';
import type { ChildPipelineOptions, ThenOptions, WaitForOptions } from './compile-flow-nodes';

/** Options of a pipeline. */
export interface PipelineOptions<
  Steps = unknown,
  Remote extends RemoteSteps = RemoteSteps,
> extends FlowControlOptions {
  /** Whole-run timeout (`workflowExecutionTimeout`). @default none */
  timeout?: Duration;
  /**
   * The worker's steps object (or their names). When given, step names are checked at compile time
   * and at definition time, so a typo fails before anything is scheduled.
   */
  steps?: Steps;
  /**
   * The key of a run, from its args (`(args) => string`): at most {@link maxConcurrent} runs of this
   * pipeline with the same key run at once, across all workers, clients and schedules; the others wait,
   * first come first served. Computed where a run starts (the client; for a job, when it is created or
   * replaced), since a function cannot travel in the run's JSON input. @default none
   */
  concurrencyKey?: (args: unknown[]) => string;
  /** Runs per concurrency key at once (only with `concurrencyKey`). @default 1 */
  maxConcurrent?: number;
  /**
   * Runs of this pipeline at once across all its concurrency keys (only with `concurrencyKey`, at least
   * `maxConcurrent`): the keys' lines are then served round-robin by one semaphore, so that a key with a
   * long line does not hold the others up. @default unbounded (each key on its own)
   */
  maxConcurrentTotal?: number;
  /** What a run does when its key or the total is full; see {@link WhenFull}. @default 'queue' */
  whenFull?: WhenFull;
  /**
   * Every step runs as a Temporal local activity unless it says `local: false`; see
   * {@link StepOptions.local} and docs/pipelines.md, "Local steps". @default false
   */
  localSteps?: boolean;
  /**
   * Steps served by workers on other task queues, e.g. a Python worker (docs/python-steps.md): step
   * name -> task queue, `{ resize: 'py-steps' }`. Declared, so that with {@link steps} a typo is still
   * caught; each is called by name on its queue (a step's own `taskQueue` overrides it). @default none
   */
  remote?: Remote;
  /**
   * Task queue of every step, compensation and `onFailure` hook that names none and is not in
   * {@link remote}: for a pipeline whose steps are all served elsewhere. Not the queue of the run itself
   * (that is the client's `taskQueue`). @default the run's task queue
   */
  stepTaskQueue?: string;
  /**
   * Temporal priority and fairness of the pipeline's runs and, unless a step sets its own, of their steps
   * (server 1.31+): `{ priority: 1..5, fairnessKey, fairnessWeight }`. A run's start (`PipelineClient`
   * `start({ priority })`) or a job (`schedule(..., { priority })`) may set its own. @default Temporal's
   */
  priority?: PriorityOptions;
}

/** Steps served elsewhere: step name -> the task queue of the workers that serve it. */
export type RemoteSteps = Readonly<Record<string, string>>;

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
  private readonly chains: ChainSpec[] = [];
  private failureHook: string | undefined;
  private failureHookQueue: string | undefined;
  private compiled: PipelineSpec | undefined;

  /** @internal use {@link pipeline} */
  constructor(
    readonly name: string,
    private readonly options: {
      timeoutMs?: number;
      localSteps?: boolean;
      remote?: RemoteSteps;
      stepTaskQueue?: string;
      priority?: PrioritySpec;
    },
    private readonly knownSteps: readonly string[] | undefined,
    /** The concurrency bound of its runs (`concurrencyKey`, `maxConcurrent`), if any. */
    readonly concurrency?: PipelineConcurrency,
    /** How events sent to it become runs (`debounce`, `batch`, `throttle`, `dedupe`), if any. */
    readonly flowControl?: PipelineFlowControl,
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

  /**
   * Appends another pipeline, run as a child workflow (its own history, a child of this run in the Temporal
   * UI) with the previous node's output as its args; its output goes on to the next node. When it fails,
   * its own saga runs, then this run's. `compensate` names a step that undoes a completed child when a
   * later node fails (it receives the child's args, then its output).
   */
  pipeline(id: string, child: PipelineLike, options: ChildPipelineOptions<Name> = {}): this {
    const at = `steps[${this.nodes.length}]`;
    const node = compileChild(id, toPipelineSpec(child), options, at);
    if (node.compensate !== undefined) {
      this.checkKnown(node.compensate, `${at}.compensate`);
      const queue = this.taskQueueOf(node.compensate);
      if (queue !== undefined) node.compensateTaskQueue = queue;
    }
    return this.push(node);
  }

  /**
   * Appends a durable timer: the run waits `duration` (a server-side timer: worker and server restarts do
   * not reset it), then the next node receives the previous node's output unchanged.
   */
  sleep(id: string, duration: Duration): this {
    return this.push(compileSleep(id, duration, `steps[${this.nodes.length}]`));
  }

  /**
   * Appends a wait for a signal (`PipelineClient.signal(workflowId, signal, payload)` or `tflow runs
   * signal`): its payload is the node's output. A signal sent before the run reaches this node is kept for
   * it. After `timeout` without one, `onTimeout: 'fail'` (the default) fails the run; `'continue'` goes on
   * with the previous node's output unchanged.
   */
  waitFor(id: string, options: WaitForOptions): this {
    return this.push(compileWaitFor(id, options, `steps[${this.nodes.length}]`));
  }

  /**
   * Starts another pipeline when this one completes, with this run's output as its args: a new run,
   * started by this run's workflow before it ends (so it happens even if every worker stops right then),
   * linked to it (a child in the UI that outlives it, and `tflowChainedFrom` in its memo). `delay` makes the
   * new run wait first (a durable timer); `jobId` is its workflow id (a template such as `report-{date}`),
   * and a run with that id that exists or existed is not started again.
   */
  then(next: PipelineLike, options: ThenOptions = {}): this {
    this.chains.push(compileChain(toPipelineSpec(next), options, `then[${this.chains.length}]`));
    this.compiled = undefined;
    return this;
  }

  /** Step run once, after compensations, when the pipeline fails for good. It receives the failure details. */
  onFailure(name: Name): this {
    this.checkKnown(name, 'onFailure');
    this.failureHook = name;
    this.failureHookQueue = this.taskQueueOf(name);
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
        ...(this.failureHookQueue !== undefined ? { onFailureTaskQueue: this.failureHookQueue } : {}),
        ...(this.chains.length > 0 ? { then: this.chains } : {}),
        ...(this.options.priority ? { priority: this.options.priority } : {}),
      }),
    );
    return this.compiled;
  }

  private push(node: NodeSpec): this {
    this.nodes.push(node);
    this.compiled = undefined;
    return this;
  }

  private compileChecked(name: string, options: StepOptions, at: string): StepSpec {
    this.checkKnown(name, at);
    const defaults: StepDefaults = {
      local: this.options.localSteps ?? false,
      taskQueueOf: (activity) => this.taskQueueOf(activity),
    };
    const step = compileStep(name, options, at, defaults);
    if (step.compensate !== undefined) this.checkKnown(step.compensate, `${at}.compensate`);
    return step;
  }

  /** Where an activity that names no queue runs: its `remote` queue, else `stepTaskQueue`, else the run's. */
  private taskQueueOf(activity: string): string | undefined {
    const remote = this.options.remote;
    if (remote && Object.hasOwn(remote, activity)) return remote[activity];
    return this.options.stepTaskQueue;
  }

  private checkKnown(name: string, field: string): void {
    if (!this.knownSteps || this.knownSteps.includes(name)) return;
    const remote = this.options.remote;
    if (remote && Object.hasOwn(remote, name)) return;
    throw new UnknownStepError(name, this.knownSteps, field, Object.keys(remote ?? {}));
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
export function pipeline<Steps = unknown, Remote extends RemoteSteps = Record<never, string>>(
  name: string,
  options: PipelineOptions<Steps, Remote> = {},
): Pipeline<StepNamesOf<Steps> | (keyof Remote & string)> {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new PipelineSpecError('name', 'invalid pipeline: name: a pipeline needs a non-empty name');
  }
  checkOptionsObject(options, '', 'pipeline');
  for (const key of Object.keys(options)) {
    if (!PIPELINE_OPTIONS.includes(key)) {
      throw new PipelineSpecError(
        key || '""',
        `invalid pipeline: unknown option "${key}"; allowed: ${PIPELINE_OPTIONS.join(', ')}`,
      );
    }
  }
  if (options.localSteps !== undefined && typeof options.localSteps !== 'boolean') {
    throw new PipelineSpecError(
      'localSteps',
      `invalid pipeline: localSteps must be true or false, got ${describeValue(options.localSteps)}`,
    );
  }
  const remote = compileRemote(options.remote);
  const stepTaskQueue =
    options.stepTaskQueue === undefined ? undefined : checkTaskQueue(options.stepTaskQueue, 'stepTaskQueue');
  const concurrency = compileConcurrency(options);
  const flowControl = compileFlowControl(options);
  const timeoutMs =
    options.timeout === undefined
      ? undefined
      : parseDuration(options.timeout, 'timeout', { error: PipelineSpecError });
  const priority = compilePriority(
    options.priority,
    'priority',
    (field, message) => new PipelineSpecError(field, `invalid pipeline: ${message}`),
  );
  return new Pipeline(
    name,
    {
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(options.localSteps ? { localSteps: true } : {}),
      ...(remote ? { remote } : {}),
      ...(stepTaskQueue !== undefined ? { stepTaskQueue } : {}),
      ...(priority ? { priority } : {}),
    },
    knownStepNames(options.steps),
    concurrency,
    flowControl,
  );
}

const PIPELINE_OPTIONS = [
  'timeout',
  'steps',
  'localSteps',
  'concurrencyKey',
  'maxConcurrent',
  'maxConcurrentTotal',
  'whenFull',
  'debounce',
  'batch',
  'throttle',
  'dedupe',
  'remote',
  'stepTaskQueue',
  'priority',
];

/** Checks `remote`: an object of step names, each with its task queue. */
function compileRemote(remote: unknown): RemoteSteps | undefined {
  if (remote === undefined) return undefined;
  if (typeof remote !== 'object' || remote === null || Array.isArray(remote)) {
    throw new PipelineSpecError(
      'remote',
      `invalid pipeline: remote must map each step served elsewhere to its task queue, e.g. { resize: 'py-steps' }, got ${describeValue(remote)}`,
    );
  }
  const out: Record<string, string> = {};
  for (const [step, queue] of Object.entries(remote)) {
    if (!/^[A-Za-z_$][\w$.-]*$/.test(step)) {
      throw new PipelineSpecError(
        `remote.${step}`,
        `invalid pipeline: remote: ${describeValue(step)} is not a step name (letters, digits, _ $ . -, starting with a letter, _ or $)`,
      );
    }
    out[step] = checkTaskQueue(queue, `remote.${step}`);
  }
  return Object.freeze(out);
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

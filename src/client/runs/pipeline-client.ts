import { compilePriority, type PriorityOptions } from '../../pipeline/priority';
import { randomUUID } from 'node:crypto';
import {
  InternalConnectionLikeSymbol,
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type InternalConnectionLike,
  type WorkflowHandleWithStartDetails,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { toPipelineSpec, type PipelineLike } from '../../pipeline/builder';
import {
  PIPELINE_WORKFLOW_TYPE,
  type PipelineProgress,
  type PipelineRunInput,
  type PipelineRunResult,
} from '../../workflows/run-types';
import { describeValue, InvalidArgumentError, TemporalFlowError } from '../../errors';
import { checkWorkflowIdTemplate, renderWorkflowId } from '../../pipeline/workflow-id';
import { runProgress, signalRun } from './run-signal';
import { runOccurrence } from '../../workflows/idempotency/occurrence';
import { checkKnownSteps, concurrencyKeyOf, runStartOptions } from './run-start';
import { sendEvent, type SendEventOptions, type SendReceipt } from './run-send';
import { translateServiceError } from '../errors';
import { resolveTracing, tracedClient, type TracingOption } from '../tracing';
import { knownStepNames } from '../../pipeline/builder';
import {
  discardDeadLetter,
  listDeadLetters,
  readFailedRun,
  RedriveError,
  type DeadLetter,
  type ListDeadLettersOptions,
} from '../dead-letters/dead-letters';
import { describeRun, type RunDescription } from './run-describe';
import { listRuns, type RunFilter } from './run-list';
import type { JobRun } from './run-types';
import type { DeadLetterEntry } from '../../workflows/dead-letters/dead-letter-defs';

/** The workflow id of a run started without one. */
const DEFAULT_WORKFLOW_ID = '{pipeline}-{uuid}';

type PipelineWorkflowFn = (input: PipelineRunInput) => Promise<PipelineRunResult>;

/**
 * Handle of a started pipeline run: the SDK's workflow handle, with `firstExecutionRunId` and
 * `eagerlyStarted` (true when a worker of this process got the run's first workflow task in the start
 * response, see {@link PipelineClientOptions.eagerStart}).
 */
export type PipelineRunHandle = WorkflowHandleWithStartDetails<PipelineWorkflowFn>;

export interface PipelineClientOptions {
  /** Task queue the workers poll. */
  taskQueue: string;
  /** The worker's steps (object or names): pipelines naming another step are rejected before they start. */
  steps?: Record<string, unknown> | readonly string[];
  /**
   * Ask for Temporal's eager workflow start on {@link PipelineClient.start}, `run` and `redrive`: the
   * server hands the run's first workflow task back in the start response, to a worker of this process,
   * instead of through the task queue. It takes effect when the client's connection is the
   * `NativeConnection` of a running worker on `taskQueue` (`new Client({ connection: worker's
   * NativeConnection })`) with a free workflow task slot, and the server allows it (dynamic config
   * `system.enableEagerWorkflowStart`, on in the Temporal CLI's dev server); otherwise the run starts as
   * usual. A client on a plain `Connection` never asks (the SDK would refuse). `false` never asks.
   * @default true
   */
  eagerStart?: boolean;
  /**
   * OpenTelemetry traces on Temporal's client interceptor: starting a run (and signalling, querying,
   * describing it) makes a span, child of the caller's active span, and the run's spans continue that
   * trace on a worker with `tracing`. `true` exports as the OTEL_* variables say; `{ spanProcessor,
   * resource }` uses yours (see docs/tracing.md). @default off
   */
  tracing?: TracingOption;
  /**
   * The summary and details of each run this client starts, for the Temporal UI (Temporal's user metadata:
   * the pipeline's name, its steps and their options; see docs/operations.md, "In the Temporal UI").
   * `false` leaves them out: about 130 bytes of history less per run of 3 steps, and a little less work per
   * start, for runs nobody reads in the UI. The UI then names a run `pipelineWorkflow` only (its
   * `TflowPipeline` search attribute still says the pipeline). @default true
   */
  runMetadata?: boolean;
}

export interface StartPipelineOptions {
  /**
   * Id of the run, a template: `{pipeline}`, `{date}` (today, UTC, `2026-12-01`), `{time}`
   * (`20261201T025500Z`), `{uuid}`. A template that renders to the id of a run that is still running is
   * refused with {@link RunAlreadyExistsError}: `etl-{date}` starts at most one run at a time per day.
   * @default `{pipeline}-{uuid}`
   */
  workflowId?: string;
  /**
   * This run's Temporal priority and fairness (server 1.31+), over the pipeline's own, e.g.
   * `{ fairnessKey: tenantId }` so that one tenant's burst does not starve the others. Its steps and
   * children inherit it unless they set their own. @default the pipeline's `priority`, else Temporal's
   */
  priority?: PriorityOptions;
}

/** A run with the workflow id asked for is running already (Temporal refuses a second one). */
export class RunAlreadyExistsError extends TemporalFlowError {
  constructor(
    readonly workflowId: string,
    readonly template: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(
      'RUN_EXISTS',
      `a run with workflow id "${workflowId}" is already running` +
        (template !== undefined && template !== workflowId
          ? ` (from the template "${template}"): add {time} or {uuid} to the template to start runs side by side`
          : ': choose another workflowId, or wait for it to end'),
      options,
    );
  }
}

/** Options of {@link PipelineClient.redrive}. */
export interface RedriveOptions {
  /**
   * Top-level step (or parallel group / map id) to start from; it must have started in the failed run,
   * whose recorded input it receives. @default the step that failed (its group or map, if inside one)
   */
  fromStep?: string;
  /** Id of the new run. @default `<failed workflowId>-redrive-<8 hex>` */
  workflowId?: string;
}

/**
 * Runs pipelines now (as opposed to {@link PipelineScheduler}, which runs them later).
 *
 * ```ts
 * const pipelines = new PipelineClient(client, { taskQueue: 'pipelines' });
 * const output = await pipelines.run(etl, ['eu']);
 * ```
 */
export class PipelineClient {
  private readonly knownSteps: readonly string[] | undefined;
  private readonly requestEagerStart: boolean;

  /** The client runs are started with (with tracing: the given one plus Temporal's tracing interceptor). */
  readonly client: Client;

  constructor(
    client: Client,
    readonly options: PipelineClientOptions,
  ) {
    if (options.runMetadata !== undefined && typeof options.runMetadata !== 'boolean') {
      throw new InvalidArgumentError(
        'runMetadata',
        `runMetadata must be true or false, got ${describeValue(options.runMetadata)}`,
      );
    }
    const tracing = resolveTracing(options.tracing);
    this.client = tracing ? tracedClient(client, tracing) : client;
    this.knownSteps = knownStepNames(options.steps);
    this.requestEagerStart = (options.eagerStart ?? true) && supportsEagerStart(client);
  }

  /**
   * Starts a run and returns its handle. `args` are the first step's arguments.
   *
   * @throws SetupRequiredError when the namespace lacks temporal-flow's search attributes (run `tflow setup`).
   */
  async start(
    p: PipelineLike,
    args: unknown[] = [],
    opts: StartPipelineOptions = {},
  ): Promise<PipelineRunHandle> {
    const spec = toPipelineSpec(p);
    checkKnownSteps(spec, this.knownSteps);
    const template = opts.workflowId ?? DEFAULT_WORKFLOW_ID;
    // The default needs no check at every start.
    if (opts.workflowId !== undefined) {
      checkWorkflowIdTemplate(
        template,
        ['pipeline', 'date', 'time', 'uuid'],
        'workflowId',
        InvalidArgumentError,
      );
    }
    const priority = compilePriority(
      opts.priority,
      'priority',
      (field, message) => new InvalidArgumentError(field, message),
    );
    const workflowId = renderWorkflowId(template, { pipeline: spec.name, now: new Date(), uuid: randomUUID });
    try {
      return await this.startWorkflow({
        taskQueue: this.options.taskQueue,
        workflowId,
        ...runStartOptions(spec, args, {
          concurrency: concurrencyKeyOf(p, args),
          ...(priority ? { priority } : {}),
          ...(this.options.runMetadata === false ? { metadata: false } : {}),
        }),
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) {
        throw new RunAlreadyExistsError(workflowId, opts.workflowId, { cause: err });
      }
      throw err;
    }
  }

  /**
   * Sends an event (the args of a run) to a pipeline with `debounce`, `batch`, `throttle` or `dedupe`:
   * resolves once the flow control of its key holds it, or deduplicated it (docs/pipelines.md, "Debounce,
   * batch, throttle and dedupe"). Its runs start on this client's task queue.
   *
   * @throws InvalidArgumentError for a pipeline without flow control, or a key function that fails.
   */
  send(p: PipelineLike, args: unknown[] = [], opts: SendEventOptions = {}): Promise<SendReceipt> {
    checkKnownSteps(toPipelineSpec(p), this.knownSteps);
    return sendEvent(this.client, this.options.taskQueue, p, args, opts);
  }

  /**
   * Sends a signal to a running run: the payload becomes the output of the `waitFor` step that waits for
   * `signal` (one sent before the run reaches that step is kept for it).
   *
   * @throws RunSignalError when the run is not running, not a pipeline, or has no `waitFor` for `signal`.
   */
  async signal(workflowId: string, signal: string, payload?: unknown): Promise<void> {
    try {
      await signalRun(this.client, workflowId, signal, payload);
    } catch (err) {
      translateServiceError(err);
    }
  }

  /**
   * The run's `progress` query, with the progress of its running child pipelines filled in
   * (`children[].progress`).
   */
  async progress(workflowId: string): Promise<PipelineProgress> {
    try {
      return await runProgress(this.client, workflowId);
    } catch (err) {
      translateServiceError(err);
    }
  }

  /** Runs a pipeline and returns the last step's output; throws `WorkflowFailedError` (cause `PipelineFailed`) on failure. */
  async run(p: PipelineLike, args: unknown[] = [], opts: StartPipelineOptions = {}): Promise<unknown> {
    const handle = await this.start(p, args, opts);
    const result = await handle.result();
    return result.output;
  }

  /**
   * Starts a new run of a failed run's pipeline (the spec it ran, not today's code) from the failed step,
   * or from `fromStep`, with the input recorded for that step. Steps before it are not run again, and
   * their compensations are not known to the new run. `workflowId` names a dead letter
   * ({@link listDeadLetters}), read from its keeper even after the failed run's history is gone; the
   * letter leaves the queue when the new run completes, and holds the new run's failure if it fails. A run
   * that failed before the queue existed is read from its own history, while the retention keeps it.
   *
   * @throws RedriveError when the run did not fail with `PipelineFailed` or `fromStep` did not start in it.
   */
  async redrive(workflowId: string, opts: RedriveOptions = {}): Promise<PipelineRunHandle> {
    const failed = await readFailedRun(this.client, workflowId);
    const fromStep = opts.fromStep ?? failed.details.failedNode!;
    const args = failed.details.nodeInputs?.[fromStep];
    if (args === undefined) {
      const started = Object.keys(failed.details.nodeInputs ?? {});
      throw new RedriveError(
        workflowId,
        `step "${fromStep}" did not start in that run; redrive from one of ${started.map((s) => `"${s}"`).join(', ')}`,
      );
    }
    const { spec } = failed.input;
    const start = runStartOptions(spec, args, {
      redrive: {
        fromStep,
        workflowId: failed.workflowId,
        runId: failed.runId,
        // Steps keep the idempotency keys they had in the failed run (and in the run it redrove, if any).
        occurrence: runOccurrence(failed.input, failed.workflowId, failed.nominalTime),
        ...(failed.deadLetter ? { deadLetter: failed.deadLetter } : {}),
      },
      // The redrive keeps the failed run's concurrency key: it competes with the key's other runs.
      ...(failed.input.concurrency ? { concurrency: failed.input.concurrency } : {}),
      ...(this.options.runMetadata === false ? { metadata: false } : {}),
    });
    return this.startWorkflow({
      ...start,
      taskQueue: this.options.taskQueue,
      workflowId: opts.workflowId ?? `${workflowId}-redrive-${randomUUID().slice(0, 8)}`,
    });
  }

  /**
   * Removes a dead letter from the queue without running it (the failed run's own history, if still
   * kept, is untouched); returns what the letter held.
   *
   * @throws DeadLetterNotFoundError when no letter of that id is queued.
   */
  async discard(workflowId: string, opts: { reason?: string } = {}): Promise<DeadLetterEntry> {
    try {
      return await discardDeadLetter(this.client, workflowId, opts.reason);
    } catch (err) {
      translateServiceError(err);
    }
  }

  /** The dead-letter queue, newest failure first (eventually consistent: see {@link listDeadLetters}). */
  async listDeadLetters(opts: ListDeadLettersOptions = {}): Promise<DeadLetter[]> {
    try {
      return await listDeadLetters(this.client, opts);
    } catch (err) {
      translateServiceError(err);
    }
  }

  /**
   * Pipeline runs (scheduled or not), newest first, failed ones with their failure message: of a job, of
   * a pipeline, with a status, since an instant. Eventually consistent, as {@link listDeadLetters}.
   */
  async listRuns(filter: RunFilter = {}): Promise<JobRun[]> {
    try {
      return await listRuns(this.client, filter);
    } catch (err) {
      translateServiceError(err);
    }
  }

  /**
   * One run in detail, from its history: steps with durations, attempts and errors, compensations, hooks,
   * and a failed run's `PipelineFailed` details. Needs no worker.
   *
   * @param runId a given run of `workflowId`. @default its latest run
   * @throws RunNotFoundError when there is no such pipeline run.
   */
  async describeRun(workflowId: string, runId?: string): Promise<RunDescription> {
    return describeRun(this.client, workflowId, runId);
  }

  private async startWorkflow(options: WorkflowStartOptions<PipelineWorkflowFn>): Promise<PipelineRunHandle> {
    try {
      return await this.client.workflow.start<PipelineWorkflowFn>(PIPELINE_WORKFLOW_TYPE, {
        ...options,
        ...(this.requestEagerStart ? { requestEagerStart: true } : {}),
      });
    } catch (err) {
      translateServiceError(err);
    }
  }
}

/**
 * Whether the client's connection can take an eager workflow task: the flag the SDK itself checks before it
 * sends `requestEagerStart` (set by `NativeConnection` only), so both agree. Whether a worker of this
 * process takes the task is settled per start by the SDK (no worker on the task queue on this connection,
 * or none with a free slot: `eagerlyStarted` is false and the run starts through the task queue).
 */
function supportsEagerStart(client: Client): boolean {
  const connection = client.connection as InternalConnectionLike;
  return connection[InternalConnectionLikeSymbol]?.supportsEagerStart === true;
}

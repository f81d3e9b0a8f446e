import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { toPipelineSpec, type PipelineLike } from '../pipeline/builder';
import {
  PIPELINE_WORKFLOW_TYPE,
  type PipelineRunInput,
  type PipelineRunResult,
} from '../workflows/run-types';
import { checkKnownSteps, runStartOptions, stepNames } from './run-start';

type PipelineWorkflowFn = (input: PipelineRunInput) => Promise<PipelineRunResult>;

/** Handle of a started pipeline run: the SDK's workflow handle. */
export type PipelineRunHandle = WorkflowHandle<PipelineWorkflowFn>;

export interface PipelineClientOptions {
  /** Task queue the workers poll. */
  taskQueue: string;
  /** The worker's steps (object or names): pipelines naming another step are rejected before they start. */
  steps?: Record<string, unknown> | readonly string[];
}

export interface StartPipelineOptions {
  /** @default `<pipeline name>-<uuid>` */
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
  private readonly knownSteps: string[] | undefined;

  constructor(
    readonly client: Client,
    readonly options: PipelineClientOptions,
  ) {
    this.knownSteps = stepNames(options.steps);
  }

  /** Starts a run and returns its handle. `args` are the first step's arguments. */
  async start(
    p: PipelineLike,
    args: unknown[] = [],
    opts: StartPipelineOptions = {},
  ): Promise<PipelineRunHandle> {
    const spec = toPipelineSpec(p);
    checkKnownSteps(spec, this.knownSteps);
    return this.client.workflow.start<PipelineWorkflowFn>(PIPELINE_WORKFLOW_TYPE, {
      taskQueue: this.options.taskQueue,
      workflowId: opts.workflowId ?? `${spec.name}-${randomUUID()}`,
      ...runStartOptions(spec, args),
    });
  }

  /** Runs a pipeline and returns the last step's output; throws `WorkflowFailedError` (cause `PipelineFailed`) on failure. */
  async run(p: PipelineLike, args: unknown[] = [], opts: StartPipelineOptions = {}): Promise<unknown> {
    const handle = await this.start(p, args, opts);
    const result = await handle.result();
    return result.output;
  }
}

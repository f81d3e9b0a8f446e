/*
 * The runs a run starts: a child pipeline (`.pipeline(id, other)`), awaited as a node, and the chained
 * runs of `.then(other)`, started when the run completes and left running when it ends. Both are runs of
 * `pipelineWorkflow` whose input embeds the other pipeline's spec; their workflow ids and the shape of
 * their input are persisted (see run-types.ts). New node kinds: no recorded run before them used these
 * commands.
 */
import {
  executeChild,
  isCancellation,
  log,
  ParentClosePolicy,
  startChild,
  uuid4,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { ChainSpec, ChildPipelineSpec, PipelineSpec } from '../../pipeline/spec';
import { renderWorkflowId } from '../../pipeline/workflow-id';
import { StepFailed, type RunContext } from './run-context';
import {
  CHAINED_FROM_MEMO,
  PIPELINE_WORKFLOW_TYPE,
  TIMEOUT_GRACE_MS,
  type ChainedRun,
  type PipelineRunInput,
  type PipelineRunResult,
} from '../run-types';
import { PIPELINE_SEARCH_ATTRIBUTE } from '../search-attributes';

type PipelineWorkflowFn = (input: PipelineRunInput) => Promise<PipelineRunResult>;

/**
 * What every run of another pipeline started from a workflow shares: its search attribute, and the
 * execution timeout backstop (after the pipeline's own timeout, and after a chained run's delay, which
 * comes before the pipeline's own timer starts).
 */
function pipelineStartOptions(spec: PipelineSpec, delayMs = 0) {
  return {
    typedSearchAttributes: [{ key: PIPELINE_SEARCH_ATTRIBUTE, value: spec.name }],
    ...(spec.timeoutMs !== undefined
      ? { workflowExecutionTimeout: delayMs + spec.timeoutMs + TIMEOUT_GRACE_MS }
      : {}),
    // Only the pipeline's own: without it a child inherits its parent's (Temporal's rule).
    ...(spec.priority ? { priority: spec.priority } : {}),
  };
}

/**
 * Runs a child pipeline: workflow id `<this run's workflow id>/<node id>`, the node's input as its args,
 * its output as the node's. A cancelled parent cancels the child and waits for its saga. A failed child
 * (after its own saga) fails the node, so the parent's saga runs next.
 */
export async function runChildPipeline(
  node: ChildPipelineSpec,
  input: unknown[],
  ctx: RunContext,
): Promise<unknown> {
  const workflowId = `${workflowInfo().workflowId}/${node.id}`;
  const startedAt = Date.now();
  ctx.progress.started(node.id);
  ctx.progress.child({ step: node.id, workflowId, status: 'running' });
  let output: unknown;
  try {
    const result = await executeChild<PipelineWorkflowFn>(PIPELINE_WORKFLOW_TYPE, {
      workflowId,
      args: [{ spec: node.pipeline, args: input }],
      staticSummary: `child pipeline ${node.pipeline.name} (step ${node.id})`,
      ...pipelineStartOptions(node.pipeline),
    });
    output = result.output;
  } catch (err) {
    ctx.progress.stopped(node.id);
    ctx.progress.child({ step: node.id, workflowId, status: 'failed' });
    throw new StepFailed(node.id, input, undefined, isCancellation(err), err);
  }
  ctx.progress.stopped(node.id);
  ctx.progress.child({ step: node.id, workflowId, status: 'completed' });
  ctx.progress.completed({ id: node.id, durationMs: Date.now() - startedAt });
  ctx.saga.record(node, node.id, input, output);
  return output;
}

/** Default workflow id of a chained run: readable, and the same on every replay of the run. */
function chainedWorkflowId(chain: ChainSpec, index: number, spec: PipelineSpec): string {
  const { workflowId } = workflowInfo();
  if (chain.workflowId !== undefined) {
    return renderWorkflowId(chain.workflowId, {
      pipeline: chain.pipeline.name,
      now: new Date(),
      uuid: uuid4,
      run: workflowId,
    });
  }
  // Two chains to the same pipeline get their position appended.
  const same = (spec.then ?? []).filter((c) => c.pipeline.name === chain.pipeline.name).length > 1;
  return `${workflowId}-then-${chain.pipeline.name}${same ? `-${index}` : ''}`;
}

/**
 * Starts the runs of the pipeline's `.then()` with `output` as their args, as children that outlive this
 * run (parent close policy ABANDON): the start is a command of this run's history, carried out by the
 * server, so it happens however the workers fare afterwards. Returns once each has started. A chain with
 * an explicit id whose run exists or existed is not started again (deduplicated).
 */
export async function startChainedRuns(spec: PipelineSpec, output: unknown): Promise<ChainedRun[]> {
  const info = workflowInfo();
  const started: ChainedRun[] = [];
  for (const [index, chain] of (spec.then ?? []).entries()) {
    const workflowId = chainedWorkflowId(chain, index, spec);
    const input: PipelineRunInput = {
      spec: chain.pipeline,
      args: [output],
      chain: {
        workflowId: info.workflowId,
        runId: info.runId,
        ...(chain.delayMs !== undefined ? { delayMs: chain.delayMs } : {}),
      },
    };
    try {
      const handle = await startChild<PipelineWorkflowFn>(PIPELINE_WORKFLOW_TYPE, {
        workflowId,
        args: [input],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        memo: { [CHAINED_FROM_MEMO]: info.workflowId },
        staticSummary: `chained from ${info.workflowId}`,
        ...(chain.workflowId !== undefined
          ? { workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE }
          : {}),
        ...pipelineStartOptions(chain.pipeline, chain.delayMs),
      });
      started.push({ pipeline: chain.pipeline.name, workflowId, runId: handle.firstExecutionRunId });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      log.info('chained run exists already: not started again', { workflowId });
      started.push({ pipeline: chain.pipeline.name, workflowId });
    }
  }
  return started;
}

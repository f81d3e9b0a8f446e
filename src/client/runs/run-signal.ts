/*
 * Talking to a run in flight: sending the signal a `waitFor` node waits for, and reading the progress of a
 * run with that of its running child pipelines. Used by PipelineClient and `tflow runs signal`.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { TemporalFlowError } from '../../errors';
import {
  PIPELINE_WORKFLOW_TYPE,
  PROGRESS_QUERY,
  type PipelineProgress,
  type PipelineRunInput,
} from '../../workflows/run-types';

/** A signal that no step of the run can take: the run is not a running pipeline, or waits for no such signal. */
export class RunSignalError extends TemporalFlowError {
  constructor(
    readonly workflowId: string,
    readonly signal: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super('CANNOT_SIGNAL', `cannot send signal "${signal}" to run "${workflowId}": ${reason}`, options);
  }
}

/** The input a run was started with: its first history event (one event read, not the whole history). */
async function startInput(client: Client, workflowId: string): Promise<PipelineRunInput | undefined> {
  const page = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId },
    maximumPageSize: 1,
  });
  const started = page.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  return decodeFromPayloadsAtIndex<PipelineRunInput>(
    client.workflow.options.loadedDataConverter,
    0,
    started?.input?.payloads,
  );
}

/**
 * Sends `signal` with `payload` to a running pipeline run, after checking that its pipeline has a
 * `waitFor` step for that signal (a typo would otherwise be buffered silently for ever). A signal sent
 * before the run reaches its step is kept for it.
 *
 * @throws RunSignalError when the run is not found, not running, not a pipeline, or waits for no such signal.
 */
export async function signalRun(
  client: Client,
  workflowId: string,
  signal: string,
  payload: unknown,
): Promise<void> {
  const refuse = (reason: string, cause?: unknown): never => {
    throw new RunSignalError(workflowId, signal, reason, cause === undefined ? undefined : { cause });
  };
  const handle = client.workflow.getHandle(workflowId);
  let description;
  try {
    description = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) refuse('no such run', err);
    throw err;
  }
  if (description.type !== PIPELINE_WORKFLOW_TYPE) refuse(`it runs "${description.type}", not a pipeline`);
  if (description.status.name !== 'RUNNING') refuse(`it is ${description.status.name.toLowerCase()}`);
  const input = await startInput(client, workflowId);
  const waits = (input?.spec.steps ?? []).flatMap((n) => (n.kind === 'waitFor' ? [n.signal] : []));
  if (!waits.includes(signal)) {
    refuse(
      waits.length
        ? `its pipeline "${input?.spec.name}" waits for ${[...new Set(waits)].map((s) => `"${s}"`).join(', ')} only`
        : `its pipeline "${input?.spec.name}" has no waitFor step`,
    );
  }
  await handle.signal(signal, payload);
}

/**
 * The `progress` of a run, with the progress of its running child pipelines filled in (recursively): a
 * workflow cannot query another, so the client follows the children the run lists.
 */
export async function runProgress(client: Client, workflowId: string): Promise<PipelineProgress> {
  const progress = await client.workflow.getHandle(workflowId).query<PipelineProgress>(PROGRESS_QUERY);
  if (!progress.children) return progress;
  const children = await Promise.all(
    progress.children.map(async (child) =>
      child.status === 'running'
        ? { ...child, progress: await runProgress(client, child.workflowId).catch(() => undefined) }
        : child,
    ),
  );
  return { ...progress, children: children.map((c) => (c.progress ? c : dropProgress(c))) };
}

function dropProgress<T extends { progress?: unknown }>(child: T): T {
  const { progress: _progress, ...rest } = child;
  return rest as T;
}

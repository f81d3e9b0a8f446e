import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { TemporalFlowError } from '../errors';
import { RunNotFoundError } from './errors';
import { PIPELINE_SEARCH_ATTRIBUTE, SCHEDULED_START_TIME_ATTRIBUTE } from '../workflows/search-attributes';
import { PIPELINE_FAILED } from '../workflows/failure-types';
import {
  PIPELINE_WORKFLOW_TYPE,
  type PipelineFailureDetails,
  type PipelineRunInput,
} from '../workflows/run-types';

/** A pipeline run that failed for good: a candidate for {@link PipelineClient.redrive}. */
export interface DeadLetter {
  workflowId: string;
  runId: string;
  /** Name of the pipeline (the `TflowPipeline` search attribute). */
  pipeline: string | undefined;
  startTime: Date;
  closeTime: Date | undefined;
}

/** Filters of {@link PipelineClient.listDeadLetters}. */
export interface ListDeadLettersOptions {
  /** Only runs of this pipeline. */
  pipeline?: string;
  /** At most this many, newest first. @default 100 */
  limit?: number;
}

/** The run cannot be redriven: it did not fail with `PipelineFailed`, or the step asked for is not known. */
export class RedriveError extends TemporalFlowError {
  constructor(
    readonly workflowId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('CANNOT_REDRIVE', `cannot redrive run "${workflowId}": ${message}`, options);
  }
}

/** Visibility query of pipeline runs that failed for good (optionally of one pipeline). */
export function deadLetterQuery(pipeline?: string): string {
  const base = `WorkflowType = '${PIPELINE_WORKFLOW_TYPE}' AND ExecutionStatus = 'Failed'`;
  return pipeline === undefined
    ? base
    : `${base} AND ${PIPELINE_SEARCH_ATTRIBUTE.name} = '${pipeline.replaceAll("'", "\\'")}'`;
}

/**
 * Lists failed pipeline runs, newest first. Visibility is eventually consistent: a run that failed a
 * moment ago may take a second to appear. Sorted here because SQLite visibility has no ORDER BY.
 */
export async function listDeadLetters(
  client: Client,
  opts: ListDeadLettersOptions = {},
): Promise<DeadLetter[]> {
  const out: DeadLetter[] = [];
  for await (const wf of client.workflow.list({ query: deadLetterQuery(opts.pipeline) })) {
    out.push({
      workflowId: wf.workflowId,
      runId: wf.runId,
      pipeline: wf.typedSearchAttributes.get(PIPELINE_SEARCH_ATTRIBUTE),
      startTime: wf.startTime,
      closeTime: wf.closeTime,
    });
  }
  out.sort((a, b) => (b.closeTime?.getTime() ?? 0) - (a.closeTime?.getTime() ?? 0));
  return out.slice(0, opts.limit ?? 100);
}

/** What a failed run recorded: its input (spec and args) and its `PipelineFailed` details. */
export interface FailedRun {
  runId: string;
  input: PipelineRunInput;
  details: PipelineFailureDetails;
  /** Nominal time of a scheduled run (`TemporalScheduledStartTime`). */
  nominalTime?: Date;
}

/**
 * Reads a failed run: the input from its first history event, the failure details from its result.
 *
 * @throws RedriveError when the run did not fail with `PipelineFailed` (still running, completed,
 * cancelled, or not a pipeline run); RunNotFoundError when there is no such run.
 */
export async function readFailedRun(client: Client, workflowId: string): Promise<FailedRun> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe().catch((err: unknown) => {
    throw err instanceof WorkflowNotFoundError ? new RunNotFoundError(workflowId, { cause: err }) : err;
  });
  if (description.type !== PIPELINE_WORKFLOW_TYPE) {
    throw new RedriveError(workflowId, `it runs "${description.type}", not a pipeline`);
  }
  if (description.status.name !== 'FAILED') {
    throw new RedriveError(
      workflowId,
      `its status is ${description.status.name}; only failed runs (listDeadLetters()) can be redriven`,
    );
  }
  let details: PipelineFailureDetails | undefined;
  try {
    await client.workflow.getHandle(workflowId, description.runId).result();
  } catch (err) {
    const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === PIPELINE_FAILED) {
      details = cause.details?.[0] as PipelineFailureDetails | undefined;
    }
  }
  if (!details?.failedNode || !details.nodeInputs) {
    throw new RedriveError(workflowId, 'it did not fail with PipelineFailed details that name a step');
  }
  const history = await client.workflow.getHandle(workflowId, description.runId).fetchHistory();
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const input = await decodeFromPayloadsAtIndex<PipelineRunInput>(
    client.workflow.options.loadedDataConverter,
    0,
    started?.input?.payloads,
  );
  const nominalTime = description.typedSearchAttributes.get(SCHEDULED_START_TIME_ATTRIBUTE);
  return { runId: description.runId, input, details, ...(nominalTime ? { nominalTime } : {}) };
}

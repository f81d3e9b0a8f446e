import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { TemporalFlowError } from '../../errors';
import { RunNotFoundError } from '../errors';
import { keywordEquals, queryLiteral } from '../query-literal';
import { PIPELINE_SEARCH_ATTRIBUTE, SCHEDULED_START_TIME_ATTRIBUTE } from '../../workflows/search-attributes';
import { PIPELINE_FAILED } from '../../workflows/failure-types';
import {
  DEAD_LETTER_MEMO,
  DEAD_LETTER_WORKFLOW_TYPE,
  deadLetterQuery,
  deadLetterWorkflowId,
  discardDeadLetterUpdate,
  type DeadLetterEntry,
  type DeadLetterResolution,
  type DeadLetterSummary,
} from '../../workflows/dead-letters/dead-letter-defs';
import {
  PIPELINE_WORKFLOW_TYPE,
  type PipelineFailureDetails,
  type PipelineRunInput,
} from '../../workflows/run-types';

/**
 * A dead letter: a pipeline run that failed for good (after its retries and compensations), kept by its
 * keeper workflow until it is redriven successfully or discarded, whatever the namespace's retention.
 */
export interface DeadLetter {
  /** Id of the letter, what {@link PipelineClient.redrive} and `discard` take: the workflow id of the run that first failed. */
  workflowId: string;
  /** The run that failed last: the first one, or a redrive of it that failed again. */
  lastWorkflowId: string;
  /** Run id of that run. */
  runId: string;
  /** Name of the pipeline. */
  pipeline: string | undefined;
  /** The step that failed (in the last failed run). */
  failedStep: string | undefined;
  /** Its error message. */
  message: string | undefined;
  /** How many runs of this letter failed (1, plus one per failed redrive). */
  failures: number;
  /** When the last failed run started, and when it failed. */
  startTime: Date;
  closeTime: Date | undefined;
}

/** Filters of {@link PipelineClient.listDeadLetters}. */
export interface ListDeadLettersOptions {
  /** Only letters of this pipeline. */
  pipeline?: string;
  /** At most this many, newest failure first. @default 100 */
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

/** No dead letter of that id is in the queue (never filed, or already redriven or discarded). */
export class DeadLetterNotFoundError extends TemporalFlowError {
  constructor(readonly workflowId: string) {
    super(
      'DEAD_LETTER_NOT_FOUND',
      `no dead letter "${workflowId}" in the queue: it was redriven or discarded, or the run did not fail (listDeadLetters() lists the queue)`,
    );
  }
}

/**
 * Visibility query of the keepers of queued dead letters (optionally of one pipeline; for a name with a
 * backslash a wider one, see {@link keywordEquals}). {@link listDeadLetters} then keeps the exact name from
 * the letters' summaries, as it does for every name, so the listing stays within that pipeline's neighbours
 * rather than the whole queue (whose other letters it may not even be able to decode).
 */
export function queuedDeadLettersQuery(pipeline?: string): string {
  const base = `WorkflowType = ${queryLiteral(DEAD_LETTER_WORKFLOW_TYPE)} AND ExecutionStatus = 'Running'`;
  if (pipeline === undefined) return base;
  const { clause } = keywordEquals(PIPELINE_SEARCH_ATTRIBUTE.name, pipeline);
  return clause === undefined ? base : `${base} AND ${clause}`;
}

/**
 * Lists the dead-letter queue, newest failure first, from the keepers' summaries (visibility, so no worker
 * is needed; eventually consistent: a letter filed a moment ago may take a second to appear). Sorted here
 * because SQLite visibility has no ORDER BY. Runs that failed before the queue existed are not in it.
 */
export async function listDeadLetters(
  client: Client,
  opts: ListDeadLettersOptions = {},
): Promise<DeadLetter[]> {
  const out: DeadLetter[] = [];
  for await (const wf of client.workflow.list({ query: queuedDeadLettersQuery(opts.pipeline) })) {
    const summary = wf.memo?.[DEAD_LETTER_MEMO] as DeadLetterSummary | undefined;
    if (!summary || (opts.pipeline !== undefined && summary.pipeline !== opts.pipeline)) continue;
    out.push({
      workflowId: summary.letterId,
      lastWorkflowId: summary.workflowId,
      runId: summary.runId,
      pipeline: summary.pipeline,
      failedStep: summary.failedStep,
      message: summary.message,
      failures: summary.failures,
      startTime: new Date(summary.startedAt),
      closeTime: new Date(summary.failedAt),
    });
  }
  out.sort((a, b) => (b.closeTime?.getTime() ?? 0) - (a.closeTime?.getTime() ?? 0));
  return out.slice(0, opts.limit ?? 100);
}

/** What a failed run recorded: its input (spec and args) and its `PipelineFailed` details. */
export interface FailedRun {
  /** The run that failed (the last one, for a letter redriven before). */
  workflowId: string;
  runId: string;
  input: PipelineRunInput;
  details: PipelineFailureDetails;
  /** Nominal time of a scheduled run (`TemporalScheduledStartTime`). */
  nominalTime?: Date;
  /** Id of the queued dead letter it was read from; absent when read from the run's history. */
  deadLetter?: string;
}

/**
 * Reads a failed run: from its dead letter when one is queued (the run's history may be gone), else from
 * the run itself (a run that failed before the queue existed): its input from its first history event, the
 * failure details from its result.
 *
 * @throws RedriveError when no letter is queued and the run did not fail with `PipelineFailed` (still
 * running, completed, cancelled, or not a pipeline run); RunNotFoundError when there is neither a queued
 * letter nor a run of that id (redriven, discarded, or past the retention).
 */
export async function readFailedRun(client: Client, workflowId: string): Promise<FailedRun> {
  const entry = await readDeadLetter(client, workflowId);
  if (entry) {
    return {
      workflowId: entry.workflowId,
      runId: entry.runId,
      input: entry.input,
      details: entry.details,
      ...(entry.nominalTime ? { nominalTime: new Date(entry.nominalTime) } : {}),
      deadLetter: entry.letterId,
    };
  }
  return readFailedRunHistory(client, workflowId);
}

/**
 * The queued letter of that id, or undefined when none was ever filed (its keeper may also be past the
 * retention). Asks its keeper, so a worker must poll the keeper's task queue.
 *
 * @throws RedriveError when the letter was already redriven successfully or discarded.
 */
export async function readDeadLetter(client: Client, letterId: string): Promise<DeadLetterEntry | undefined> {
  const handle = client.workflow.getHandle(deadLetterWorkflowId(letterId));
  try {
    const description = await handle.describe();
    if (description.status.name === 'RUNNING') return (await handle.query(deadLetterQuery)) ?? undefined;
    if (description.status.name !== 'COMPLETED') return undefined;
    const resolution = (await handle.result()) as DeadLetterResolution;
    throw new RedriveError(
      letterId,
      resolution.status === 'redriven'
        ? `its dead letter was already redriven by run "${resolution.workflowId}", which completed`
        : `its dead letter was discarded${resolution.reason ? ` (${resolution.reason})` : ''}`,
    );
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/**
 * Removes a letter from the queue without running it; returns what it held.
 *
 * @throws DeadLetterNotFoundError when no letter of that id is queued.
 */
export async function discardDeadLetter(
  client: Client,
  letterId: string,
  reason: string | undefined,
): Promise<DeadLetterEntry> {
  const handle = client.workflow.getHandle(deadLetterWorkflowId(letterId));
  try {
    const description = await handle.describe();
    if (description.status.name !== 'RUNNING') throw new DeadLetterNotFoundError(letterId);
    const entry = await handle.executeUpdate(discardDeadLetterUpdate, { args: [reason ? { reason } : {}] });
    if (!entry) throw new DeadLetterNotFoundError(letterId);
    return entry;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new DeadLetterNotFoundError(letterId);
    throw err;
  }
}

async function readFailedRunHistory(client: Client, workflowId: string): Promise<FailedRun> {
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
  return { workflowId, runId: description.runId, input, details, ...(nominalTime ? { nominalTime } : {}) };
}

import { Context } from '@temporalio/activity';
import { TypedSearchAttributes } from '@temporalio/common';
import {
  DEAD_LETTER_MEMO,
  DEAD_LETTER_WORKFLOW_TYPE,
  deadLetterWorkflowId,
  recordDeadLetterSignal,
  summarize,
  type DeadLetterEntry,
} from '../../workflows/dead-letters/dead-letter-defs';
import { PIPELINE_SEARCH_ATTRIBUTE } from '../../workflows/search-attributes';

/**
 * Files a failed run's dead letter with its keeper (signal-with-start: the first failure starts the
 * keeper, a failed redrive of the same letter replaces the entry). The keeper runs on the failed run's task
 * queue and carries the pipeline's name as `TflowPipeline`, so that listings can filter by it.
 * Registered on every worker (persisted name: never rename).
 */
export async function tflowFileDeadLetter(entry: DeadLetterEntry): Promise<void> {
  const { client } = Context.current();
  await client.workflow.signalWithStart(DEAD_LETTER_WORKFLOW_TYPE, {
    workflowId: deadLetterWorkflowId(entry.letterId),
    taskQueue: entry.taskQueue,
    args: [],
    signal: recordDeadLetterSignal,
    signalArgs: [entry],
    memo: { [DEAD_LETTER_MEMO]: summarize(entry) },
    typedSearchAttributes: new TypedSearchAttributes([
      { key: PIPELINE_SEARCH_ATTRIBUTE, value: entry.input.spec.name },
    ]),
  });
}

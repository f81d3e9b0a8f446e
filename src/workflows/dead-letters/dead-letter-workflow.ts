import {
  allHandlersFinished,
  condition,
  continueAsNew,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import {
  DEAD_LETTER_MEMO,
  deadLetterQuery,
  deadLetterRedrivenSignal,
  discardDeadLetterUpdate,
  recordDeadLetterSignal,
  summarize,
  type DeadLetterEntry,
  type DeadLetterResolution,
} from './dead-letter-defs';

/**
 * The keeper of one dead letter (type `deadLetterWorkflow`, id `tflow-dead-letter:<letter id>`): a
 * workflow that stays running, so that the namespace's retention never removes it, holding what a redrive
 * needs. The failed run files it (signal-with-start from an activity); a redrive of it that fails again
 * replaces the entry (the node inputs of both are kept, so a redrive can still start from an earlier
 * step); it ends when a redrive completes or the letter is discarded. It issues no command while it
 * waits, so its history grows only by the signals it gets; past Temporal's suggestion it continues as new.
 */
export async function deadLetterWorkflow(carried?: DeadLetterEntry): Promise<DeadLetterResolution> {
  let entry = carried;
  let resolution: DeadLetterResolution | undefined;

  setHandler(recordDeadLetterSignal, (next) => {
    entry = entry
      ? {
          ...next,
          letterId: entry.letterId,
          failures: entry.failures + 1,
          details: {
            ...next.details,
            nodeInputs: { ...entry.details.nodeInputs, ...next.details.nodeInputs },
          },
        }
      : next;
    upsertMemo({ [DEAD_LETTER_MEMO]: summarize(entry) });
  });
  setHandler(deadLetterQuery, () => entry ?? null);
  setHandler(deadLetterRedrivenSignal, (run) => {
    resolution ??= { status: 'redriven', ...run };
  });
  setHandler(discardDeadLetterUpdate, ({ reason }) => {
    resolution ??= { status: 'discarded', ...(reason ? { reason } : {}) };
    return entry ?? null;
  });

  await condition(() => resolution !== undefined || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  if (resolution) return resolution;
  return continueAsNew<typeof deadLetterWorkflow>(entry);
}

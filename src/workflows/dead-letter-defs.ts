/*
 * Names and shapes of the dead-letter queue: one keeper workflow per dead letter, running (so never
 * removed by the namespace's retention) until the letter is redriven successfully or discarded. Shared by
 * the failing run, the keeper, the activity that files a letter and the client. Persisted in histories:
 * never rename the type, signal, query, update, memo or patch names; add optional fields only.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PipelineFailureDetails, PipelineRunInput } from './run-types';

/** Workflow type of the keeper of one dead letter. */
export const DEAD_LETTER_WORKFLOW_TYPE = 'deadLetterWorkflow';

/**
 * Patch id of the run behaviour that files its failure with a keeper (and, for a redriven run that
 * completes, removes the letter it redrove). Runs recorded before it replay without it.
 */
export const DEAD_LETTER_PATCH = 'tflow-dead-letter-keeper';

/**
 * Workflow id of the keeper of a dead letter. A letter is named by the workflow id of the run that first
 * failed: a redrive of it that fails again updates the same letter.
 */
export function deadLetterWorkflowId(letterId: string): string {
  return `tflow-dead-letter:${letterId}`;
}

/** What a dead letter holds: everything `redrive()` needs, without the failed run's history. */
export interface DeadLetterEntry {
  /** The letter's id: the workflow id of the run that first failed. */
  letterId: string;
  /** The run that failed last (the first one, or a redrive of it that failed again). */
  workflowId: string;
  runId: string;
  /** Task queue of that run (the queue a redrive starts on when the client does not say). */
  taskQueue: string;
  /** When that run started and when it failed (workflow time, ISO 8601). */
  startedAt: string;
  failedAt: string;
  /** Its input: the spec it ran, its args, its job and redrive context. */
  input: PipelineRunInput;
  /** Its `PipelineFailed` details (failed step, its input, the error, every node's input). */
  details: PipelineFailureDetails;
  /** Nominal time of a scheduled run (`TemporalScheduledStartTime`, ISO 8601). */
  nominalTime?: string;
  /** How many runs of this letter failed (1, plus one per failed redrive). */
  failures: number;
}

/** How a keeper ended. */
export type DeadLetterResolution =
  { status: 'redriven'; workflowId: string; runId: string } | { status: 'discarded'; reason?: string };

/** Memo key of a keeper: a summary of its entry (no inputs), for listings without a worker. */
export const DEAD_LETTER_MEMO = 'tflowDeadLetter';

/** The memo summary of a letter (see {@link DEAD_LETTER_MEMO}). */
export interface DeadLetterSummary {
  letterId: string;
  workflowId: string;
  runId: string;
  pipeline: string;
  failedStep: string;
  message: string;
  startedAt: string;
  failedAt: string;
  failures: number;
}

/** Signal: file (or replace, after a failed redrive) the letter's entry. */
export const recordDeadLetterSignal = defineSignal<[DeadLetterEntry]>('recordDeadLetter');
/** Signal from a redriven run that completed: the letter is done. */
export const deadLetterRedrivenSignal =
  defineSignal<[{ workflowId: string; runId: string }]>('deadLetterRedriven');
/** Query: the letter's entry (null before the first record arrived). */
export const deadLetterQuery = defineQuery<DeadLetterEntry | null>('deadLetter');
/** Update: discard the letter; returns the entry it held. */
export const discardDeadLetterUpdate = defineUpdate<DeadLetterEntry | null, [{ reason?: string }]>(
  'discardDeadLetter',
);

/** The memo summary of an entry. */
export function summarize(entry: DeadLetterEntry): DeadLetterSummary {
  return {
    letterId: entry.letterId,
    workflowId: entry.workflowId,
    runId: entry.runId,
    pipeline: entry.input.spec.name,
    failedStep: entry.details.failedStep,
    message: entry.details.message,
    startedAt: entry.startedAt,
    failedAt: entry.failedAt,
    failures: entry.failures,
  };
}

/** The keeper's activity (activities/dead-letter-activities.ts; persisted name: never rename). */
export interface DeadLetterActivities {
  /** Files a failed run's dead letter with its keeper. */
  tflowFileDeadLetter: (entry: DeadLetterEntry) => Promise<void>;
}

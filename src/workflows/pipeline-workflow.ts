import { interpretPipeline } from './run/interpreter';
import { runWithJobGuards } from './guards/job-guards';
import { reportRunStarted } from './run/run-finished';
import { withDeadLetter } from './dead-letters/dead-letter-record';
import { withConcurrencySlot } from './guards/concurrency-guard';
import type { PipelineRunInput, PipelineRunResult } from './run-types';

/**
 * The one workflow a worker registers for pipelines, under its persisted type name `pipelineWorkflow`
 * (see run-types.ts): every run, scheduled or not. Scheduled runs go through the job guards (misfire,
 * maxInstances, onError) around the interpreter; the others go straight to it. A run with a concurrency
 * key holds a slot of its key (concurrency-guard.ts); a run that fails for good files a dead letter
 * (dead-letter-record.ts).
 */
export function pipelineWorkflow(input: PipelineRunInput): Promise<PipelineRunResult> {
  reportRunStarted(input);
  return withDeadLetter(input, () =>
    runWithJobGuards(input, (i, lagMs) => withConcurrencySlot(i, () => interpretPipeline(i, lagMs))),
  );
}

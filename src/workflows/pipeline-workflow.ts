import { interpretPipeline } from './interpreter';
import { runWithJobGuards } from './job-guards';
import { reportRunStarted } from './run-finished';
import type { PipelineRunInput, PipelineRunResult } from './run-types';

/**
 * The one workflow a worker registers for pipelines, under its persisted type name `pipelineWorkflow`
 * (see run-types.ts): every run, scheduled or not. Scheduled runs go through the job guards (misfire,
 * maxInstances, onError) around the interpreter; the others go straight to it.
 */
export async function pipelineWorkflow(input: PipelineRunInput): Promise<PipelineRunResult> {
  reportRunStarted(input);
  return runWithJobGuards(input, interpretPipeline);
}

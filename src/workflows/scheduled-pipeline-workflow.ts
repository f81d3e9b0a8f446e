import { runWithJobGuards } from './job-guards';
import { pipelineWorkflow as interpretPipeline } from './pipeline-workflow';
import type { PipelineRunInput, PipelineRunResult } from './run-types';

/**
 * The workflow registered as `pipelineWorkflow` (its exported name is the persisted type name): the
 * interpreter, behind the job guards for runs started by a schedule.
 */
export async function pipelineWorkflow(input: PipelineRunInput): Promise<PipelineRunResult> {
  return runWithJobGuards(input, interpretPipeline);
}

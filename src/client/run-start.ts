import { TypedSearchAttributes } from '@temporalio/common';
import { activitiesOf, type PipelineSpec } from '../pipeline/spec';
import { PIPELINE_SEARCH_ATTRIBUTE } from '../workflows/search-attributes';
import {
  TIMEOUT_GRACE_MS,
  type PipelineRunInput,
  type RedriveContext,
  type RunJobContext,
} from '../workflows/run-types';
import { runMetadata } from './run-metadata';
import { UnknownStepError } from '../pipeline/errors';

/**
 * Checks that every activity of a spec is among the worker's steps, when the caller told us which they are.
 *
 * @throws UnknownStepError for the first unknown one.
 */
export function checkKnownSteps(spec: PipelineSpec, knownSteps: readonly string[] | undefined): void {
  if (!knownSteps) return;
  for (const name of activitiesOf(spec)) {
    if (!knownSteps.includes(name)) throw new UnknownStepError(name, knownSteps);
  }
}

/**
 * The parts of a workflow start (direct, redriven or from a schedule) that every pipeline run shares,
 * including what the Temporal UI shows of it (run-metadata.ts).
 */
export function runStartOptions(
  spec: PipelineSpec,
  args: unknown[],
  job?: RunJobContext,
  redrive?: RedriveContext,
) {
  const input: PipelineRunInput = { spec, args, ...(job ? { job } : {}), ...(redrive ? { redrive } : {}) };
  return {
    args: [input] as [PipelineRunInput],
    ...runMetadata(input),
    typedSearchAttributes: new TypedSearchAttributes([{ key: PIPELINE_SEARCH_ATTRIBUTE, value: spec.name }]),
    ...(spec.timeoutMs !== undefined ? { workflowExecutionTimeout: spec.timeoutMs + TIMEOUT_GRACE_MS } : {}),
  };
}

import type { PrioritySpec } from '../../pipeline/priority';
import { TypedSearchAttributes } from '@temporalio/common';
import { activitiesOf, type PipelineSpec } from '../../pipeline/spec';
import { PIPELINE_SEARCH_ATTRIBUTE } from '../../workflows/search-attributes';
import {
  TIMEOUT_GRACE_MS,
  type PipelineRunInput,
  type RedriveContext,
  type RunConcurrency,
  type RunJobContext,
} from '../../workflows/run-types';
import { runMetadata } from './run-metadata';
import { UnknownStepError } from '../../pipeline/errors';
import { Pipeline, type PipelineLike } from '../../pipeline/builder';
import { describeValue, InvalidArgumentError } from '../../errors';

/**
 * The concurrency key of a run of `p` with these args (see `PipelineOptions.concurrencyKey`), computed
 * here because a function cannot travel in the run's input; undefined for a pipeline without one (and for
 * a bare spec, which cannot carry the function).
 *
 * @throws InvalidArgumentError (field `concurrencyKey`) when the function throws or returns no string.
 */
export function concurrencyKeyOf(p: PipelineLike, args: unknown[]): RunConcurrency | undefined {
  const concurrency = p instanceof Pipeline ? p.concurrency : undefined;
  if (!concurrency) return undefined;
  let key: unknown;
  try {
    key = concurrency.key(args);
  } catch (err) {
    throw new InvalidArgumentError(
      'concurrencyKey',
      `the concurrencyKey of pipeline "${p.name}" threw on args ${describeValue(args)}: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  if (typeof key !== 'string' || key === '') {
    throw new InvalidArgumentError(
      'concurrencyKey',
      `the concurrencyKey of pipeline "${p.name}" must return a non-empty string, got ${describeValue(key)} for args ${describeValue(args)}`,
    );
  }
  const { max, total, whenFull } = concurrency;
  return {
    key,
    max,
    ...(total !== undefined ? { total } : {}),
    ...(whenFull !== 'queue' ? { whenFull } : {}),
  };
}

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
  context: {
    job?: RunJobContext;
    redrive?: RedriveContext;
    concurrency?: RunConcurrency;
    /** The run's own priority and fairness (a start option, a job's): over the pipeline's. */
    priority?: PrioritySpec;
    /** `false`: no summary and details for the Temporal UI (see `PipelineClientOptions.runMetadata`). */
    metadata?: boolean;
  } = {},
) {
  const { job, redrive, concurrency } = context;
  const priority = context.priority ?? spec.priority;
  const input: PipelineRunInput = {
    spec,
    args,
    ...(job ? { job } : {}),
    ...(redrive ? { redrive } : {}),
    ...(concurrency ? { concurrency } : {}),
  };
  return {
    args: [input] as [PipelineRunInput],
    ...(context.metadata === false ? {} : runMetadata(input)),
    typedSearchAttributes: new TypedSearchAttributes([{ key: PIPELINE_SEARCH_ATTRIBUTE, value: spec.name }]),
    ...(spec.timeoutMs !== undefined ? { workflowExecutionTimeout: spec.timeoutMs + TIMEOUT_GRACE_MS } : {}),
    ...(priority ? { priority } : {}),
  };
}

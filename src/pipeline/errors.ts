import { describeValue, InvalidArgumentError, TemporalFlowError } from '../errors';

/**
 * A pipeline definition or spec is invalid. `field` is the path of the offending value, e.g.
 * `steps[1].retry.backoffCoefficient`.
 */
export class PipelineSpecError extends InvalidArgumentError {
  static override readonly code: string = 'INVALID_PIPELINE';
}

/**
 * A step names an activity that the pipeline's known steps do not include. `field` is where the name was
 * given, e.g. `steps[2]`, `steps[0].compensate`, `onFailure` or `onError`.
 */
export class UnknownStepError extends TemporalFlowError {
  constructor(
    readonly step: string,
    readonly knownSteps: readonly string[],
    readonly field = 'steps',
    /** The pipeline's steps served elsewhere (its `remote`), when it declares some. */
    readonly remoteSteps: readonly string[] = [],
  ) {
    const known = knownSteps.map((s) => `"${s}"`).join(', ') || '(none)';
    super(
      'UNKNOWN_STEP',
      remoteSteps.length > 0
        ? `unknown step ${describeValue(step)}: the worker's steps are ${known}, and the steps served elsewhere (remote) ${remoteSteps.map((s) => `"${s}"`).join(', ')}`
        : `unknown step ${describeValue(step)}: the worker's steps are ${known}; a step served by another worker is declared in the pipeline's remote, e.g. { remote: { ${describeValue(step)}: 'py-steps' } }`,
    );
  }
}

/**
 * A local step (`local: true`, or a pipeline's `localSteps`) was given an option that Temporal's local
 * activities do not have, such as `heartbeat`. `step` is the step's id, `option` the builder option at
 * fault, and `field` its path, e.g. `steps[1].heartbeat`.
 */
export class LocalStepOptionError extends PipelineSpecError {
  static override readonly code: string = 'INVALID_LOCAL_STEP';

  constructor(
    readonly step: string,
    readonly option: string,
    field: string,
    reason: string,
  ) {
    super(field, `invalid pipeline: ${field}: step "${step}" is local, ${reason}`);
  }
}

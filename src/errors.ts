/**
 * Base class of every error temporal-flow throws on purpose. Catch it to tell our typed errors from the
 * Temporal SDK's own and from bugs; each subclass carries `readonly` context fields that say what was wrong.
 */
export class TemporalFlowError extends Error {
  /** A stable machine-readable code, e.g. `INVALID_CRON`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

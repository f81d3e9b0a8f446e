import { TemporalFlowError } from '../errors';

/**
 * A trigger (cron, calendar, interval, one-off, time zone) or a job policy is invalid. `field` names the
 * option, and the message says what was wrong and what to write instead.
 */
export class InvalidTriggerError extends TemporalFlowError {
  constructor(
    readonly field: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('INVALID_TRIGGER', message, options);
  }
}

/** A job policy (maxInstances, coalesce, misfireGraceTime, overlap, ...) is invalid. */
export class InvalidPolicyError extends TemporalFlowError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super('INVALID_POLICY', message);
  }
}

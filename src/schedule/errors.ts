import { InvalidArgumentError } from '../errors';

/**
 * A trigger (cron, calendar, interval, one-off, time zone) is invalid. `field` names the option, and the
 * message says what was wrong and what to write instead.
 */
export class InvalidTriggerError extends InvalidArgumentError {
  static override readonly code: string = 'INVALID_TRIGGER';
}

/** A job policy (maxInstances, coalesce, misfireGraceTime, overlap, ...) is invalid. */
export class InvalidPolicyError extends InvalidArgumentError {
  static override readonly code: string = 'INVALID_POLICY';
}

/**
 * A holiday set of a trigger's `exclude` (`{ holidays: 'US-NY' }`) names a country, state or region the
 * holiday library does not know. The message lists the codes it knows.
 */
export class UnknownHolidaysError extends InvalidTriggerError {
  static override readonly code: string = 'UNKNOWN_HOLIDAYS';
}

/**
 * The window of a dry run (`dryRun(job, { from, to })`) or one of its `workersDown` spans is unusable: `to`
 * not after `from`, or a window holding more occurrences than one dry run lists. `field` names the bound.
 */
export class InvalidWindowError extends InvalidArgumentError {
  static override readonly code: string = 'INVALID_WINDOW';
}

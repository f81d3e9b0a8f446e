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

/**
 * A bad value as error messages show it: its JSON when it has one (`"2 parsecs"`, `{}`), else what it is
 * (`a bigint`, `a symbol`, `a circular object`), so that building the message never throws.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  try {
    const json = JSON.stringify(value) as string | undefined;
    if (json !== undefined) return json.length > 200 ? `${json.slice(0, 200)}...` : json;
  } catch {
    return `a ${typeof value === 'object' ? 'non-JSON object' : typeof value}`;
  }
  return `a ${typeof value}`;
}

/**
 * A bad argument: an option, a setting or a definition that cannot be used. `field` names it (a path such
 * as `steps[1].retry.backoffCoefficient`, an option such as `limit`, a variable such as
 * `TEMPORAL_TLS_CLIENT_KEY_PATH`), and the message says what was wrong and what to write instead.
 *
 * The family of bad-input errors: `InvalidTriggerError`, `InvalidPolicyError`, `PipelineSpecError`,
 * `InvalidConfigError` and `InvalidRetentionError` are subclasses that differ only by `code` and name, so
 * `catch (e) { if (e instanceof InvalidArgumentError) ... }` catches every one of them. This class itself
 * (`code: 'INVALID_ARGUMENT'`) is for arguments of no narrower kind (`args`, `limit`, `onError`, a backfill
 * window, a preview's `n`, ...).
 */
export class InvalidArgumentError extends TemporalFlowError {
  /** The `code` of this class's errors; each subclass sets its own. */
  static readonly code: string = 'INVALID_ARGUMENT';

  constructor(
    /** The argument at fault. */
    readonly field: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(new.target.code, message, options);
  }
}

/** A class of the {@link InvalidArgumentError} family: what a parser is told to throw for its caller's field. */
export type InvalidArgumentErrorClass = new (
  field: string,
  message: string,
  options?: { cause?: unknown },
) => InvalidArgumentError;

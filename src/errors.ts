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

import { msToNumber } from '@temporalio/common/lib/time';
import type { Duration } from '@temporalio/common';
import { describeValue, InvalidArgumentError, type InvalidArgumentErrorClass } from '../errors';

/** A duration as users write it: milliseconds as a number, or a string such as `'30s'`, `'5m'`, `'1 day'`. */
export type DurationInput = Duration;

/** Longest duration accepted: `'100y'` (Temporal cuts longer timeouts to 100 years). */
export const MAX_DURATION_MS = 100 * 365.25 * 86_400_000;

/** Options of {@link parseDuration}. */
export interface ParseDurationOptions {
  /** Accept zero (an offset), else a duration must be greater than zero. @default false */
  allowZero?: boolean;
  /**
   * The class of the error thrown, of the caller's kind (e.g. `InvalidTriggerError` for `every`), so that
   * the error is created once, already naming the field. @default InvalidArgumentError
   */
  error?: InvalidArgumentErrorClass;
}

/**
 * Parses a duration into whole milliseconds. `field` names where the value came from, so that the error
 * can say `retry.initialInterval "2 parsecs" is not a duration`.
 *
 * @throws InvalidArgumentError (or `opts.error`) naming `field` when the value is not a duration, not
 * strictly positive (or negative, with `allowZero`), or longer than {@link MAX_DURATION_MS}.
 */
export function parseDuration(input: DurationInput, field: string, opts: ParseDurationOptions = {}): number {
  const Failure = opts.error ?? InvalidArgumentError;
  let ms: number;
  try {
    ms = msToNumber(input);
  } catch (err) {
    throw new Failure(
      field,
      `${field} ${describeValue(input)} is not a duration: write milliseconds as a number or a string such as '30s', '5m', '2h', '1d'`,
      { cause: err },
    );
  }
  // Rounded first: 0.4 ms is no time at all, and must not pass as "greater than zero".
  ms = Math.round(ms);
  if (!Number.isFinite(ms) || ms < 0 || (ms === 0 && !opts.allowZero)) {
    throw new Failure(
      field,
      `${field} ${describeValue(input)} must be ${opts.allowZero ? 'zero or more' : 'greater than zero'}`,
    );
  }
  if (ms > MAX_DURATION_MS) {
    throw new Failure(
      field,
      `${field} ${describeValue(input)} is longer than 100 years, the longest duration Temporal keeps (it rejects intervals past 10,000 years and cuts timeouts to 100)`,
    );
  }
  return ms;
}

/**
 * A duration for people to read: `250 ms`, `1.5 s`, `5m`, `1h 30m`, `2d 3h` (two units at most). Pure:
 * workflow code may use it.
 */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Number((ms / 1_000).toFixed(1))} s`;
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ];
  const parts: string[] = [];
  let rest = Math.round(ms / 1_000) * 1_000;
  for (const [unit, size] of units) {
    if (rest >= size && parts.length < 2) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    } else if (parts.length > 0) break;
  }
  return parts.join(' ');
}

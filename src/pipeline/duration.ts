import { msToNumber } from '@temporalio/common/lib/time';
import type { Duration } from '@temporalio/common';
import { PipelineSpecError } from './errors';

/** A duration as users write it: milliseconds as a number, or a string such as `'30s'`, `'5m'`, `'1 day'`. */
export type DurationInput = Duration;

/**
 * Parses a duration into whole milliseconds. `field` names where the value came from, so that the error
 * can say `retry.initialInterval "2 parsecs" is not a duration`.
 *
 * @throws PipelineSpecError when the value is not a duration or not strictly positive (or negative,
 * with `allowZero`).
 */
export function parseDuration(
  input: DurationInput,
  field: string,
  opts: { allowZero?: boolean } = {},
): number {
  let ms: number;
  try {
    ms = msToNumber(input);
  } catch (err) {
    throw new PipelineSpecError(
      field,
      `${field} ${JSON.stringify(input)} is not a duration: write milliseconds as a number or a string such as '30s', '5m', '2h', '1d'`,
      { cause: err },
    );
  }
  if (!Number.isFinite(ms) || ms < 0 || (ms === 0 && !opts.allowZero)) {
    throw new PipelineSpecError(
      field,
      `${field} ${JSON.stringify(input)} must be ${opts.allowZero ? 'zero or more' : 'greater than zero'}`,
    );
  }
  return Math.round(ms);
}

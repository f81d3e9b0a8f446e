import { describeValue, InvalidArgumentError, type InvalidArgumentErrorClass } from '../errors';

/** A rate as users write it: `'<count>/<s|m|h>'` (`'10/s'`, `'100/m'`, `'0.5/s'`), or a number per second. */
export type RateInput = string | number;

const UNIT_SECONDS: Record<string, number> = { s: 1, sec: 1, m: 60, min: 60, h: 3600 };

/**
 * Parses a rate into a number per second. `field` names where the value came from.
 *
 * @throws InvalidArgumentError (or `opts.error`) naming `field` when the value is not a positive rate.
 */
export function parseRate(
  input: RateInput,
  field: string,
  opts: { error?: InvalidArgumentErrorClass } = {},
): number {
  const Failure = opts.error ?? InvalidArgumentError;
  let perSecond = Number.NaN;
  if (typeof input === 'number') perSecond = input;
  else if (typeof input === 'string') {
    const match = /^\s*(\d+(?:\.\d+)?)\s*\/\s*([a-z]+)\s*$/.exec(input);
    const unit = match ? UNIT_SECONDS[match[2]!] : undefined;
    if (match && unit !== undefined) perSecond = Number(match[1]) / unit;
  }
  if (!Number.isFinite(perSecond) || perSecond <= 0) {
    throw new Failure(
      field,
      `${field} ${describeValue(input)} is not a rate: write '<count>/s', '<count>/m' or '<count>/h' (e.g. '10/s'), or a number per second greater than zero`,
    );
  }
  return perSecond;
}

import { daysInMonth } from './days-in-month';
import { describeValue, InvalidArgumentError, type InvalidArgumentErrorClass } from '../errors';

/*
 * Instants as users give them (runAt, startAt/endAt, backfill from/to, preview from): a Date, or an ISO 8601
 * string with "Z" or an offset. One reader for all of them, so that each accepts exactly the same values.
 * Date.parse alone is too lenient: it reads "2 Z" as 2001-02-01, rolls "2027-02-30" over to March 2, and
 * reads a string without an offset in the client's own zone.
 */

/** `2027-01-01T09:30:00Z`, `...T09:30Z`, `...T09:30:00.123+01:00`, `...T09:30:00-0500`, a space for the T. */
const ISO_INSTANT =
  /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d)(?::(\d\d)(?:\.\d{1,9})?)?(?:Z|[+-](\d\d):?(\d\d))$/i;

/** First and last years a Temporal timestamp can hold (protobuf's Timestamp range). */
const MIN_TIMESTAMP_YEAR = 1;
const MAX_TIMESTAMP_YEAR = 9999;

/**
 * Reads an instant: a valid Date, or an ISO 8601 string with an offset, of a date and time that exist
 * (not February 30, not 25:00), in the years 0001-9999.
 *
 * @param field where the value came from (`runAt`, `startAt`, `from`, ...), named by the error.
 * @param opts.error the class of the error thrown, of the caller's kind (e.g. `InvalidTriggerError` for
 * `runAt`). @default InvalidArgumentError
 * @throws InvalidArgumentError (or `opts.error`) naming `field` when the value is not such an instant.
 */
export function parseInstant(
  value: unknown,
  field: string,
  opts: { error?: InvalidArgumentErrorClass } = {},
): Date {
  const date = readInstant(value);
  if (date) return date;
  throw new (opts.error ?? InvalidArgumentError)(
    field,
    `${field} ${describeValue(value)} is not an instant: give a Date or an ISO 8601 string with "Z" or an offset, e.g. "2027-01-01T00:00:00Z"`,
  );
}

function readInstant(value: unknown): Date | undefined {
  let date: Date;
  if (value instanceof Date) {
    date = new Date(value.getTime());
  } else if (typeof value === 'string') {
    const m = ISO_INSTANT.exec(value);
    if (!m) return undefined;
    const [y, mo, d, h, mi, s = 0, oh = 0, om = 0] = m
      .slice(1)
      .map((g) => (g === undefined ? undefined : Number(g)));
    if (mo! < 1 || mo! > 12 || d! < 1 || d! > daysInMonth(mo!, y!) || h! > 23 || mi! > 59 || s > 59) {
      return undefined;
    }
    if (oh > 23 || om > 59) return undefined;
    date = new Date(value.replace(' ', 'T'));
  } else {
    return undefined;
  }
  if (Number.isNaN(date.getTime())) return undefined;
  const year = date.getUTCFullYear();
  return year < MIN_TIMESTAMP_YEAR || year > MAX_TIMESTAMP_YEAR ? undefined : date;
}

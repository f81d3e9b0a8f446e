import type { Duration } from '@temporalio/common';
import { describeValue } from '../errors';
import { parseDuration } from '../parse/duration';
import { InvalidRetentionError } from './errors';

const DAY_MS = 24 * 3600_000;

/** Temporal refuses a namespace retention under one day. */
export const MIN_RETENTION_MS = DAY_MS;

/**
 * Under this, `setupNamespace` and `tflow doctor` warn: run history, dead letters and redrive vanish
 * before a week-end's incident has been looked at.
 */
export const RECOMMENDED_RETENTION_MS = 7 * DAY_MS;

/**
 * Parses a retention (`'30d'`, `'720h'`, or milliseconds).
 *
 * @param field where the value came from, named by the error. @default 'retention'
 * @throws InvalidRetentionError when it is not a duration or is under one day.
 */
export function parseRetention(input: Duration, field = 'retention'): number {
  const ms = parseDuration(input, field, { error: InvalidRetentionError });
  if (ms < MIN_RETENTION_MS) {
    throw new InvalidRetentionError(
      field,
      `${field} ${describeValue(input)} is under one day, Temporal's minimum: write '1d' or more (30d is a good default)`,
    );
  }
  return ms;
}

/** `30 days`, `1.5 days`, `12 hours`: how retention is shown. */
export function formatRetention(ms: number): string {
  if (ms >= DAY_MS) {
    const days = Math.round((ms / DAY_MS) * 100) / 100;
    return `${days} day${days === 1 ? '' : 's'}`;
  }
  const hours = Math.round((ms / 3600_000) * 100) / 100;
  return `${hours} hour${hours === 1 ? '' : 's'}`;
}

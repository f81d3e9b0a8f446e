import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
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
 * @throws InvalidRetentionError when it is not a duration or is under one day.
 */
export function parseRetention(input: Duration): number {
  let ms: number;
  try {
    ms = msToNumber(input);
  } catch (err) {
    throw new InvalidRetentionError(
      'retention',
      `retention ${JSON.stringify(input)} is not a duration: write it as '30d', '720h' or milliseconds`,
      { cause: err },
    );
  }
  if (!Number.isFinite(ms) || ms < MIN_RETENTION_MS) {
    throw new InvalidRetentionError(
      'retention',
      `retention ${JSON.stringify(input)} is under one day, Temporal's minimum: write '1d' or more (30d is a good default)`,
    );
  }
  return Math.round(ms);
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

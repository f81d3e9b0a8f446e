/*
 * A pipeline's concurrency bound (`concurrencyKey`, `maxConcurrent`, `maxConcurrentTotal`, `whenFull`),
 * checked once where the pipeline is defined. Pure and workflow-safe: the run reads `WhenFull` too.
 */
import { describeValue } from '../errors';
import { PipelineSpecError } from './errors';

/**
 * What a run does when its key (or the pipeline's total) is full:
 * - `queue`: it waits in its key's line; keys are served round-robin (the default);
 * - `skip`: it ends at once as `skipped` (reason `concurrency`), running no step;
 * - `cancel-newest`: it ends at once as cancelled (the newest run loses);
 * - `cancel-in-progress`: the oldest runs of its key are cancelled so that the newest `maxConcurrent`
 *   of the key run; it takes a slot once a cancelled one gives its slot back (never before). When only
 *   the total is full it waits, like `queue`: another key's runs are never cancelled for it.
 */
export const WHEN_FULL = ['queue', 'skip', 'cancel-newest', 'cancel-in-progress'] as const;

/** One of {@link WHEN_FULL}. */
export type WhenFull = (typeof WHEN_FULL)[number];

/** A pipeline's concurrency bound: the key function and the limits. */
export interface PipelineConcurrency {
  key: (args: unknown[]) => string;
  /** Runs per key at once. */
  max: number;
  /** Runs of the pipeline at once across all its keys, when bounded. */
  total?: number;
  whenFull: WhenFull;
}

/** The options {@link compileConcurrency} reads (a subset of `PipelineOptions`). */
export interface ConcurrencyOptions {
  concurrencyKey?: (args: unknown[]) => string;
  maxConcurrent?: number;
  maxConcurrentTotal?: number;
  whenFull?: WhenFull;
}

const wholeAtLeastOne = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 1;

/**
 * Checks a pipeline's concurrency options; undefined for a pipeline without a key.
 *
 * @throws PipelineSpecError naming the option at fault.
 */
export function compileConcurrency(options: ConcurrencyOptions): PipelineConcurrency | undefined {
  const { concurrencyKey, maxConcurrent, maxConcurrentTotal, whenFull } = options;
  if (concurrencyKey === undefined) {
    for (const [field, value] of Object.entries({ maxConcurrent, maxConcurrentTotal, whenFull })) {
      if (value !== undefined) {
        throw new PipelineSpecError(
          field,
          `invalid pipeline: ${field} needs a concurrencyKey, e.g. { concurrencyKey: ([customer]) => String(customer), maxConcurrent: 2 }`,
        );
      }
    }
    return undefined;
  }
  if (typeof concurrencyKey !== 'function') {
    throw new PipelineSpecError(
      'concurrencyKey',
      `invalid pipeline: concurrencyKey must be a function of the run's args returning a string, got ${describeValue(concurrencyKey)}`,
    );
  }
  const max = maxConcurrent ?? 1;
  if (!wholeAtLeastOne(max)) {
    throw new PipelineSpecError(
      'maxConcurrent',
      `invalid pipeline: maxConcurrent must be a whole number >= 1, got ${describeValue(maxConcurrent)}`,
    );
  }
  if (
    maxConcurrentTotal !== undefined &&
    !(wholeAtLeastOne(maxConcurrentTotal) && maxConcurrentTotal >= max)
  ) {
    throw new PipelineSpecError(
      'maxConcurrentTotal',
      `invalid pipeline: maxConcurrentTotal must be a whole number >= maxConcurrent (${max}), got ${describeValue(maxConcurrentTotal)}`,
    );
  }
  if (whenFull !== undefined && !WHEN_FULL.includes(whenFull)) {
    throw new PipelineSpecError(
      'whenFull',
      `invalid pipeline: whenFull must be one of ${WHEN_FULL.map((w) => `'${w}'`).join(', ')}, got ${describeValue(whenFull)}`,
    );
  }
  return {
    key: concurrencyKey,
    max,
    ...(maxConcurrentTotal !== undefined ? { total: maxConcurrentTotal } : {}),
    whenFull: whenFull ?? 'queue',
  };
}

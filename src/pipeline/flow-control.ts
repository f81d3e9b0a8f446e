/*
 * A pipeline's flow control of incoming events (`debounce`, `batch`, `throttle`, `dedupe`), checked once
 * where the pipeline is defined. The key function stays with the builder (it cannot travel); the rest
 * compiles to a JSON `FlowControlSpec` that the flow-control workflow reads. Pure and workflow-safe.
 */
import type { Duration } from '@temporalio/common';
import { describeValue } from '../errors';
import { parseDuration } from '../parse/duration';
import { PipelineSpecError } from './errors';

/** The key of an event, from its args: events of one key are debounced, batched, throttled or deduplicated together. */
export type FlowKey = (args: unknown[]) => string;

/** `debounce`: one run once no event came for `period` (or `maxWait` after the first of the window). */
export interface DebounceOptions {
  /** @default one key for the whole pipeline */
  key?: FlowKey;
  /** The quiet time that ends a window. */
  period: Duration;
  /** The longest a window stays open, however often events come. @default none */
  maxWait?: Duration;
  /**
   * What the run gets: `last`, the args of the window's last event (its first step receives them as a
   * direct start would); `all`, one argument, the array of every event's args in the order accepted.
   * @default 'last'
   */
  deliver?: 'last' | 'all';
}

/** `batch`: one run per `maxSize` events, or `maxWait` after the first event of a batch. */
export interface BatchOptions {
  /** @default one key for the whole pipeline */
  key?: FlowKey;
  /** Most events in one run. */
  maxSize: number;
  /** The longest the first event of a batch waits for the batch to fill. */
  maxWait: Duration;
}

/** `throttle`: one run per event, at most `limit` runs started in any `period`; the excess waits, in order. */
export interface ThrottleOptions {
  /** @default one key for the whole pipeline */
  key?: FlowKey;
  limit: number;
  period: Duration;
}

/** `dedupe`: the first event starts a run; events of the same key within `window` of that start start none. */
export interface DedupeOptions {
  /** @default one key for the whole pipeline */
  key?: FlowKey;
  window: Duration;
}

/** The serialisable part of a pipeline's flow control: what its flow-control workflow obeys. */
export type FlowControlSpec =
  | { kind: 'debounce'; periodMs: number; maxWaitMs?: number; deliver: 'last' | 'all' }
  | { kind: 'batch'; maxSize: number; maxWaitMs: number }
  | { kind: 'throttle'; limit: number; periodMs: number }
  | { kind: 'dedupe'; windowMs: number };

/** The kinds of flow control, as option names. */
export const FLOW_CONTROL_KINDS = ['debounce', 'batch', 'throttle', 'dedupe'] as const;

/** A pipeline's flow control: its key function (if any) and its spec. */
export interface PipelineFlowControl {
  key?: FlowKey;
  spec: FlowControlSpec;
}

/** The options {@link compileFlowControl} reads (a subset of `PipelineOptions`). */
export interface FlowControlOptions {
  debounce?: DebounceOptions;
  batch?: BatchOptions;
  throttle?: ThrottleOptions;
  dedupe?: DedupeOptions;
}

const ALLOWED: Record<(typeof FLOW_CONTROL_KINDS)[number], readonly string[]> = {
  debounce: ['key', 'period', 'maxWait', 'deliver'],
  batch: ['key', 'maxSize', 'maxWait'],
  throttle: ['key', 'limit', 'period'],
  dedupe: ['key', 'window'],
};

const fail = (field: string, message: string) => new PipelineSpecError(field, `invalid pipeline: ${message}`);
const duration = (value: unknown, field: string) =>
  parseDuration(value as Duration, field, { error: PipelineSpecError });

function wholeAtLeastOne(value: unknown, field: string): number {
  if (!Number.isInteger(value) || (value as number) < 1) {
    throw fail(field, `${field} must be a whole number >= 1, got ${describeValue(value)}`);
  }
  return value as number;
}

/**
 * Checks a pipeline's flow-control options: at most one kind, each field named in its error
 * (`debounce.period`, `batch.maxSize`...). Undefined for a pipeline without one.
 *
 * @throws PipelineSpecError naming the option at fault.
 */
export function compileFlowControl(options: FlowControlOptions): PipelineFlowControl | undefined {
  const given = FLOW_CONTROL_KINDS.filter((k) => options[k] !== undefined);
  if (given.length === 0) return undefined;
  if (given.length > 1) {
    throw fail(
      given[1]!,
      `a pipeline has at most one of ${FLOW_CONTROL_KINDS.join(', ')}, got ${given.join(' and ')}`,
    );
  }
  const kind = given[0]!;
  const raw = options[kind] as unknown as Record<string, unknown>;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw fail(
      kind,
      `${kind} must be an object of options (${ALLOWED[kind].join(', ')}), got ${describeValue(raw)}`,
    );
  }
  for (const name of Object.keys(raw)) {
    if (!ALLOWED[kind].includes(name)) {
      throw fail(`${kind}.${name}`, `unknown option ${kind}.${name}; allowed: ${ALLOWED[kind].join(', ')}`);
    }
  }
  if (raw.key !== undefined && typeof raw.key !== 'function') {
    throw fail(
      `${kind}.key`,
      `${kind}.key must be a function of the event's args returning a string, got ${describeValue(raw.key)}`,
    );
  }
  const key = raw.key as FlowKey | undefined;
  return { ...(key ? { key } : {}), spec: compileSpec(kind, raw) };
}

function compileSpec(
  kind: (typeof FLOW_CONTROL_KINDS)[number],
  raw: Record<string, unknown>,
): FlowControlSpec {
  switch (kind) {
    case 'debounce': {
      const periodMs = duration(raw.period, 'debounce.period');
      const maxWaitMs = raw.maxWait === undefined ? undefined : duration(raw.maxWait, 'debounce.maxWait');
      if (maxWaitMs !== undefined && maxWaitMs < periodMs) {
        throw fail(
          'debounce.maxWait',
          `debounce.maxWait (${maxWaitMs} ms) must be at least debounce.period (${periodMs} ms)`,
        );
      }
      const deliver = raw.deliver ?? 'last';
      if (deliver !== 'last' && deliver !== 'all') {
        throw fail(
          'debounce.deliver',
          `debounce.deliver must be 'last' or 'all', got ${describeValue(deliver)}`,
        );
      }
      return { kind, periodMs, ...(maxWaitMs !== undefined ? { maxWaitMs } : {}), deliver };
    }
    case 'batch':
      return {
        kind,
        maxSize: wholeAtLeastOne(raw.maxSize, 'batch.maxSize'),
        maxWaitMs: duration(raw.maxWait, 'batch.maxWait'),
      };
    case 'throttle':
      return {
        kind,
        limit: wholeAtLeastOne(raw.limit, 'throttle.limit'),
        periodMs: duration(raw.period, 'throttle.period'),
      };
    case 'dedupe':
      return { kind, windowMs: duration(raw.window, 'dedupe.window') };
  }
}

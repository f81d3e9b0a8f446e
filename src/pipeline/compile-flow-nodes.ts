/*
 * Compiles the builder options of the nodes that are not activity calls: a child pipeline, a sleep, a
 * wait for a signal, and a chain (`.then`). Same rules as compile-step.ts: durations to milliseconds,
 * unknown keys refused, every error a PipelineSpecError naming its field.
 */
import type { Duration } from '@temporalio/common';
import { parseDuration } from '../parse/duration';
import { describeValue } from '../errors';
import { PipelineSpecError } from './errors';
import { checkKeys, compileRetry, type RetryOptions } from './compile-step';
import type { ChainSpec, ChildPipelineSpec, PipelineSpec, SleepSpec, WaitForSpec } from './spec';
import { checkWorkflowIdTemplate } from './workflow-id';

/** Options of a child pipeline node (`.pipeline(id, other, options)`). */
export interface ChildPipelineOptions<Name extends string = string> {
  /** Step that undoes the completed child when a later node fails: it receives the child's args, then its output. */
  compensate?: Name;
  /** Retry policy of that compensation. @default Temporal's (unlimited attempts) */
  compensateRetry?: RetryOptions;
}

/** Options of `.waitFor(id, options)`. */
export interface WaitForOptions {
  /** Name of the signal to wait for (letters, digits, `_ $ . : -`). */
  signal: string;
  /** How long to wait. @default forever */
  timeout?: Duration;
  /** What a timeout does: fail the run (saga, dead letter) or go on. @default 'fail' */
  onTimeout?: 'fail' | 'continue';
}

/** Options of `.then(next, options)`. */
export interface ThenOptions {
  /** The next run waits this long before its first node (a durable timer in that run). @default none */
  delay?: Duration;
  /**
   * Workflow id of the next run, a template: `{pipeline}` (the next pipeline's name), `{date}`, `{time}`,
   * `{uuid}`, `{run}` (this run's workflow id). A run with this id that exists or existed (within the
   * namespace's retention) is not started again: the chain is deduplicated by it.
   * @default `<this run's workflow id>-then-<next pipeline's name>`
   */
  jobId?: string;
}

const specDuration = (value: Duration, field: string) =>
  parseDuration(value, field, { error: PipelineSpecError });

function checkId(id: unknown, at: string, what: string): string {
  if (typeof id !== 'string' || id.trim() === '') {
    throw new PipelineSpecError(
      `${at}.id`,
      `invalid pipeline: ${at}.id: a ${what} needs a non-empty id, got ${describeValue(id)}`,
    );
  }
  return id;
}

export function compileChild(
  id: string,
  pipeline: PipelineSpec,
  options: ChildPipelineOptions,
  at: string,
): ChildPipelineSpec {
  checkKeys(options, ['compensate', 'compensateRetry'], at, 'child pipeline');
  const node: ChildPipelineSpec = { kind: 'pipeline', id: checkId(id, at, 'child pipeline'), pipeline };
  if (options.compensate !== undefined) node.compensate = options.compensate;
  if (options.compensateRetry !== undefined) {
    node.compensateRetry = compileRetry(options.compensateRetry, `${at}.compensateRetry`);
  }
  return node;
}

export function compileSleep(id: string, duration: Duration, at: string): SleepSpec {
  return {
    kind: 'sleep',
    id: checkId(id, at, 'sleep'),
    durationMs: specDuration(duration, `${at}.duration`),
  };
}

export function compileWaitFor(id: string, options: WaitForOptions, at: string): WaitForSpec {
  checkKeys(options, ['signal', 'timeout', 'onTimeout'], at, 'waitFor');
  const onTimeout = options.onTimeout ?? 'fail';
  if (onTimeout !== 'fail' && onTimeout !== 'continue') {
    throw new PipelineSpecError(
      `${at}.onTimeout`,
      `invalid pipeline: ${at}.onTimeout must be 'fail' or 'continue', got ${describeValue(onTimeout)}`,
    );
  }
  if (typeof options.signal !== 'string') {
    throw new PipelineSpecError(
      `${at}.signal`,
      `invalid pipeline: ${at}.signal must be the name of the signal to wait for, e.g. 'approve', got ${describeValue(options.signal)}`,
    );
  }
  return {
    kind: 'waitFor',
    id: checkId(id, at, 'waitFor'),
    signal: options.signal,
    ...(options.timeout !== undefined ? { timeoutMs: specDuration(options.timeout, `${at}.timeout`) } : {}),
    onTimeout,
  };
}

export function compileChain(pipeline: PipelineSpec, options: ThenOptions, at: string): ChainSpec {
  checkKeys(options, ['delay', 'jobId'], at, 'then');
  const chain: ChainSpec = { pipeline };
  if (options.delay !== undefined) chain.delayMs = specDuration(options.delay, `${at}.delay`);
  if (options.jobId !== undefined) {
    checkWorkflowIdTemplate(
      options.jobId,
      ['pipeline', 'date', 'time', 'uuid', 'run'],
      `${at}.jobId`,
      PipelineSpecError,
    );
    chain.workflowId = options.jobId;
  }
  return chain;
}

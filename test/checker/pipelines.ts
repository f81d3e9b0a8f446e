/*
 * The checker's pipelines and steps, shared by the worker processes (which run them) and the runner (which
 * starts and schedules them). Every step execution appends one JSON line to the history log, at its start
 * and at its end: the run (workflow id and run id), the step, the attempt, the worker's pid and the time.
 * The invariants read these lines, not what the product reports about itself.
 */
import { appendFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { pipeline } from '../../src/pipeline';

/** What a step receives and passes on: how long it works, and for key runs the key. */
export interface WorkInput {
  /** Milliseconds the step works (heartbeating). */
  ms: number;
  key?: string;
}

/** One line of the step log. */
export interface StepRecord {
  ev: 'start' | 'end' | 'fail';
  wf: string;
  run: string;
  step: string;
  attempt: number;
  pid: number;
  at: number;
  /** At a start: the `ms` of the step's input (the run's args, for a job's first step), for I7. */
  ms?: number;
}

export const STEP_NAMES = ['a', 'b', 'c', 'd', 'hold', 'charge'] as const;

/**
 * The steps, writing to `<dir>/steps.log`. `charge` fails for good (non-retryable) until
 * `<dir>/fixed-<workflow id>` exists, which the runner creates before it redrives the run's letter.
 */
export function checkerSteps(dir: string) {
  const logFile = path.join(dir, 'steps.log');
  const record = (ev: StepRecord['ev'], step: string, ms?: number) => {
    const info = Context.current().info;
    const line: StepRecord = {
      ev,
      wf: info.workflowExecution?.workflowId ?? '',
      run: info.workflowExecution?.runId ?? '',
      step,
      attempt: info.attempt,
      pid: process.pid,
      at: Date.now(),
      ...(ms === undefined ? {} : { ms }),
    };
    appendFileSync(logFile, `${JSON.stringify(line)}\n`);
  };
  const work = (step: string) => async (input: WorkInput) => {
    record('start', step, input?.ms);
    const until = Date.now() + (input?.ms ?? 0);
    while (Date.now() < until) {
      Context.current().heartbeat();
      await new Promise((r) => setTimeout(r, Math.min(100, Math.max(1, until - Date.now()))));
    }
    record('end', step);
    return input;
  };
  return {
    a: work('a'),
    b: work('b'),
    c: work('c'),
    d: work('d'),
    hold: work('hold'),
    async charge(input: WorkInput) {
      record('start', 'charge');
      const root = (Context.current().info.workflowExecution?.workflowId ?? '').replace(
        /-redrive-[0-9a-f]+$/,
        '',
      );
      if (!existsSync(path.join(dir, `fixed-${root}`))) {
        record('fail', 'charge');
        throw ApplicationFailure.nonRetryable('the charge is refused until the test fixes it', 'CkRefused');
      }
      record('end', 'charge');
      return input;
    },
  };
}

type Steps = ReturnType<typeof checkerSteps>;
const names = STEP_NAMES as unknown as (keyof Steps)[];
/** Long steps heartbeat: a SIGKILLed worker's attempt is retried after 2 s, not after the 10 min timeout. */
const live = { heartbeat: '2s', retry: { initialInterval: '200ms', maximumInterval: '1s' } } as const;

/** What scheduled jobs run: a short step, then one that works `ms`. */
export const jobPipeline = pipeline('ck-job', { steps: names, timeout: '10m' })
  .step('a', live)
  .step('b', live);

/** At most {@link KEY_MAX} runs of one key at once (the concurrency-key semaphore). */
export const KEY_MAX = 2;
export const keyPipeline = pipeline('ck-key', {
  steps: names,
  timeout: '10m',
  concurrencyKey: ([input]) => (input as WorkInput).key ?? 'none',
  maxConcurrent: KEY_MAX,
}).step('hold', live);

/** A child pipeline and a wait for the `go` signal, then a last step. */
export const childPipeline = pipeline('ck-child', { steps: names, timeout: '10m' }).step('c', live);
export const parentPipeline = pipeline('ck-parent', { steps: names, timeout: '10m' })
  .step('a', live)
  .pipeline('kid', childPipeline)
  .waitFor('gate', { signal: 'go', timeout: '10m' })
  .step('d', live);

/** Fails for good at `charge` (a dead letter) until the runner fixes it and redrives. */
export const flakyPipeline = pipeline('ck-flaky', { steps: names, timeout: '10m' })
  .step('a', live)
  .step('charge', { retry: { maximumAttempts: 1 } })
  .step('d', live);

/** Step order of each pipeline's own workflow (a child's steps are in the child's run). */
export const STEP_ORDER: Record<string, readonly string[]> = {
  'ck-job': ['a', 'b'],
  'ck-key': ['hold'],
  'ck-child': ['c'],
  'ck-parent': ['a', 'd'],
  'ck-flaky': ['a', 'charge', 'd'],
};

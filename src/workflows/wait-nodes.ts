/*
 * The nodes that wait: `sleep` (a durable timer) and `waitFor` (a signal, with an optional timeout). The
 * signal names are the user's (the spec's `signal`), so the handlers are set from the spec; the timer
 * summaries (`sleep <id>`, `waitFor <id>`) show in the Temporal UI. New node kinds: no recorded run
 * before them used these commands.
 */
import { ApplicationFailure, condition, sleep } from '@temporalio/workflow';
import type { SleepSpec, WaitForSpec } from '../pipeline/spec';
import { WAIT_TIMED_OUT } from './failure-types';
import { StepFailed, type RunContext } from './run-context';

/** Waits `durationMs` on a server timer; the output is the input, unchanged. */
export async function runSleep(node: SleepSpec, input: unknown[], ctx: RunContext): Promise<unknown> {
  const startedAt = Date.now();
  ctx.progress.started(node.id);
  ctx.progress.waiting({
    step: node.id,
    kind: 'sleep',
    until: new Date(startedAt + node.durationMs).toISOString(),
  });
  try {
    await sleep(node.durationMs, { summary: `sleep ${node.id}` });
  } catch (err) {
    ctx.progress.doneWaiting(node.id);
    ctx.progress.stopped(node.id);
    throw new StepFailed(node.id, input, undefined, true, err);
  }
  ctx.progress.doneWaiting(node.id);
  ctx.progress.stopped(node.id);
  ctx.progress.completed({ id: node.id, durationMs: Date.now() - startedAt });
  return input[0];
}

/**
 * Waits for the node's signal: its payload is the output. On timeout, `fail` fails the node (the run's
 * saga runs), `continue` returns the input unchanged.
 */
export async function runWaitFor(node: WaitForSpec, input: unknown[], ctx: RunContext): Promise<unknown> {
  const { mailbox } = ctx;
  const startedAt = Date.now();
  ctx.progress.started(node.id);
  ctx.progress.waiting({
    step: node.id,
    kind: 'waitFor',
    signal: node.signal,
    ...(node.timeoutMs !== undefined ? { until: new Date(startedAt + node.timeoutMs).toISOString() } : {}),
  });
  const arrived = () => mailbox.has(node.signal);
  let received: boolean;
  try {
    if (node.timeoutMs === undefined) {
      await condition(arrived);
      received = true;
    } else {
      received = await condition(arrived, node.timeoutMs, { summary: `waitFor ${node.id}` });
    }
  } catch (err) {
    ctx.progress.doneWaiting(node.id);
    ctx.progress.stopped(node.id);
    throw new StepFailed(node.id, input, undefined, true, err);
  }
  ctx.progress.doneWaiting(node.id);
  ctx.progress.stopped(node.id);
  if (!received && node.onTimeout === 'fail') {
    const error = ApplicationFailure.create({
      type: WAIT_TIMED_OUT,
      message: `no signal "${node.signal}" within ${node.timeoutMs} ms`,
      nonRetryable: true,
    });
    throw new StepFailed(node.id, input, undefined, false, error);
  }
  ctx.progress.completed({ id: node.id, durationMs: Date.now() - startedAt });
  return received ? mailbox.take(node.signal) : input[0];
}

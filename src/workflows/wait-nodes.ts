/*
 * The nodes that wait: `sleep` (a durable timer) and `waitFor` (a signal, with an optional timeout). The
 * signal names are the user's (the spec's `signal`), so the handlers are set from the spec; the timer
 * summaries (`sleep <id>`, `waitFor <id>`) show in the Temporal UI. New node kinds: no recorded run
 * before them used these commands.
 */
import { ApplicationFailure, condition, defineSignal, setHandler, sleep } from '@temporalio/workflow';
import type { PipelineSpec, SleepSpec, WaitForSpec } from '../pipeline/spec';
import { WAIT_TIMED_OUT } from './failure-types';
import { StepFailed, type RunContext } from './run-nodes';

/**
 * Signals received by a run, by name, oldest first. Each `waitFor` takes one: a signal that arrives
 * before its wait begins is kept for it, and two waits on the same name take one signal each.
 */
export class SignalMailbox {
  private readonly queues = new Map<string, unknown[]>();

  /** Sets a handler for every signal the run's `waitFor` nodes name (before any node runs). */
  static forSpec(spec: PipelineSpec): SignalMailbox {
    const mailbox = new SignalMailbox();
    for (const node of spec.steps) if (node.kind === 'waitFor') mailbox.listen(node.signal);
    return mailbox;
  }

  private listen(name: string): void {
    if (this.queues.has(name)) return;
    const queue: unknown[] = [];
    this.queues.set(name, queue);
    setHandler(defineSignal<[unknown?]>(name), (payload) => {
      queue.push(payload);
    });
  }

  has(name: string): boolean {
    return (this.queues.get(name)?.length ?? 0) > 0;
  }

  take(name: string): unknown {
    return this.queues.get(name)?.shift();
  }
}

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

/*
 * What the node runners (run-nodes.ts, wait-nodes.ts, child-runs.ts) share: the failure of a step, the
 * run's context and its signal mailbox. Apart from the runners so that they import it, not each other.
 */
import { defineSignal, setHandler } from '@temporalio/workflow';
import type { PipelineSpec } from '../pipeline/spec';
import type { ProgressTracker } from './progress';
import type { Saga } from './saga';

/** A step failed for good (or was cancelled): which one, with what input, after how many attempts. */
export class StepFailed extends Error {
  constructor(
    readonly stepId: string,
    readonly input: unknown[],
    readonly attempts: number | undefined,
    readonly cancelled: boolean,
    readonly error: unknown,
  ) {
    super(`step "${stepId}" failed`);
  }
}

/** What every node of one run shares: its saga, its progress and the signals it received. */
export interface RunContext {
  saga: Saga;
  progress: ProgressTracker;
  mailbox: SignalMailbox;
}

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

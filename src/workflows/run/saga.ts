import { CancellationScope } from '@temporalio/workflow';
import type { RetrySpec } from '../../pipeline/spec';
import type { ProgressTracker } from './progress';
import type { CompensationOutcome } from '../run-types';
import { attemptsOf, rootFailure, stepActivity, type ActivityFields } from './step-options';

/** A node that can be undone: a step, a map item, a child pipeline. */
export interface Compensable extends ActivityFields {
  compensate?: string | undefined;
  compensateRetry?: RetrySpec | undefined;
  /** Queue of the compensation's workers; undefined: the run's own. */
  compensateTaskQueue?: string | undefined;
}

interface Completed {
  step: Compensable;
  stepId: string;
  compensate: string;
  /** What the compensation is called with: the step's own arguments, then its result. */
  args: unknown[];
}

/**
 * The saga of one run: every completed step that has a compensation, in completion order (parallel
 * branches and map items interleave as they really finished), undone in exact reverse order.
 */
export class Saga {
  private readonly done: Completed[] = [];

  /** Records a completed step; steps without a compensation need no undoing and are not kept. */
  record(step: Compensable, stepId: string, input: unknown[], output: unknown): void {
    if (step.compensate) {
      this.done.push({ step, stepId, compensate: step.compensate, args: [...input, output] });
    }
  }

  /**
   * Runs the compensations, last completed first, in a non-cancellable scope (a cancelled or timed-out
   * run still rolls back). Each uses its own retry policy (`compensateRetry`, else the step's); one that
   * fails for good is recorded and the others still run.
   */
  async compensate(progress: ProgressTracker): Promise<CompensationOutcome[]> {
    return CancellationScope.nonCancellable(async () => {
      const outcomes: CompensationOutcome[] = [];
      for (const { step, stepId, compensate, args } of [...this.done].reverse()) {
        const retry = step.compensateRetry ?? step.retry;
        // A local step's compensation is local too: same worker, same limits.
        const fn = stepActivity(step, compensate, `${stepId}:compensate`, retry, step.compensateTaskQueue);
        let outcome: CompensationOutcome;
        try {
          await fn(...args);
          outcome = { stepId, activity: compensate, status: 'completed' };
        } catch (err) {
          const attempts = attemptsOf(err, retry);
          outcome = {
            stepId,
            activity: compensate,
            status: 'failed',
            error: rootFailure(err).message,
            ...(attempts !== undefined ? { attempts } : {}),
          };
        }
        outcomes.push(outcome);
        progress.compensated(outcome);
      }
      return outcomes;
    });
  }
}

import { CancellationScope, proxyActivities } from '@temporalio/workflow';
import type { MapSpec, StepSpec } from '../pipeline/spec';
import type { ProgressTracker } from './progress';
import type { CompensationInput, CompensationOutcome } from './run-types';
import { activityOptions, attemptsOf, rootFailure } from './step-options';

type AnyActivity = (input: CompensationInput) => Promise<unknown>;

interface Completed {
  step: StepSpec | MapSpec;
  compensate: string;
  input: CompensationInput;
}

/**
 * The saga of one run: every completed step that has a compensation, in completion order (parallel
 * branches and map items interleave as they really finished), undone in exact reverse order.
 */
export class Saga {
  private readonly done: Completed[] = [];

  /** Records a completed step; steps without a compensation need no undoing and are not kept. */
  record(step: StepSpec | MapSpec, stepId: string, input: unknown[], output: unknown): void {
    if (step.compensate) {
      this.done.push({ step, compensate: step.compensate, input: { stepId, input, output } });
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
      for (const { step, compensate, input } of [...this.done].reverse()) {
        const opts = activityOptions(step, `${input.stepId}:compensate`, step.compensateRetry ?? step.retry);
        const fn = proxyActivities<Record<string, AnyActivity>>(opts)[compensate]!;
        let outcome: CompensationOutcome;
        try {
          await fn(input);
          outcome = { stepId: input.stepId, activity: compensate, status: 'completed' };
        } catch (err) {
          const attempts = attemptsOf(err, step.compensateRetry ?? step.retry);
          outcome = {
            stepId: input.stepId,
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

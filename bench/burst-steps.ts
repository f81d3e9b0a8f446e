/** The one step both sides of bench/fire-burst.bench.ts run: it notes when it started, per run. */
import { Context } from '@temporalio/activity';

// A type alias, not an interface: createWorker's `Steps` is an index signature an interface does not meet.
export type BurstSteps = { burstStep: (x: number) => Promise<number> };

/** A `burstStep` that records the wall-clock time it started at into `startedAt`, by workflow id. */
export function recordingSteps(startedAt: Map<string, number>): BurstSteps {
  return {
    async burstStep(x: number): Promise<number> {
      const now = Date.now();
      startedAt.set(Context.current().info.workflowExecution?.workflowId ?? '', now);
      return x + 1;
    },
  };
}

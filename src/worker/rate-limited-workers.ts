import { Worker, type WorkerOptions } from '@temporalio/worker';
import { InvalidArgumentError } from '../errors';
import { toPipelineSpec, type PipelineLike } from '../pipeline/builder';
import { activityNodesOf } from '../pipeline/spec';
import { rateLimitedTaskQueue } from '../workflows/run/rate-limit';

/**
 * The rate-limited activities of these pipelines, with their rate per second. One queue per activity
 * carries one rate, so two steps that limit the same activity differently are refused.
 *
 * @throws InvalidArgumentError (field `pipelines`) on such a conflict, or for an activity not in `steps`.
 */
export function rateLimitsOf(
  pipelines: readonly PipelineLike[],
  steps: Record<string, unknown>,
): Map<string, number> {
  const limits = new Map<string, { perSecond: number; where: string }>();
  for (const p of pipelines) {
    const spec = toPipelineSpec(p);
    for (const step of activityNodesOf(spec)) {
      // A step served on another queue is rate limited by the workers of that queue (docs/python-steps.md).
      if (step.rateLimitPerSecond === undefined || step.taskQueue !== undefined) continue;
      const where = `pipeline "${spec.name}" step "${step.id}"`;
      if (!(step.activity in steps)) {
        throw new InvalidArgumentError(
          'pipelines',
          `${where} is rate limited but its activity "${step.activity}" is not among this worker's steps`,
        );
      }
      const seen = limits.get(step.activity);
      if (seen && seen.perSecond !== step.rateLimitPerSecond) {
        throw new InvalidArgumentError(
          'pipelines',
          `activity "${step.activity}" is rate limited at ${seen.perSecond}/s by ${seen.where} and at ${step.rateLimitPerSecond}/s by ${where}: one activity has one rate (its own task queue); give both steps the same rateLimit`,
        );
      }
      limits.set(step.activity, { perSecond: step.rateLimitPerSecond, where });
    }
  }
  return new Map([...limits].map(([activity, { perSecond }]) => [activity, perSecond]));
}

/**
 * One activity-only worker per rate-limited activity, on the activity's own queue, with Temporal's
 * `maxTaskQueueActivitiesPerSecond`: the server dispatches at most that many tasks per second from the
 * queue, whatever the number of pollers.
 */
export async function createRateLimitedWorkers(
  base: Omit<WorkerOptions, 'taskQueue' | 'activities' | 'workflowsPath' | 'workflowBundle'> & {
    taskQueue: string;
  },
  steps: Record<string, unknown>,
  limits: Map<string, number>,
): Promise<Worker[]> {
  const { taskQueue, ...options } = base;
  return Promise.all(
    [...limits].map(([activity, perSecond]) =>
      Worker.create({
        ...options,
        taskQueue: rateLimitedTaskQueue(taskQueue, activity),
        activities: { [activity]: steps[activity] as (...args: unknown[]) => unknown },
        maxTaskQueueActivitiesPerSecond: perSecond,
      }),
    ),
  );
}

/**
 * Makes `main`'s `run()` (and so `runUntil()`) run the companion workers too, and its `shutdown()` stop
 * them: the worker createWorker returns stays the SDK's Worker. When one of them fails, the others are
 * shut down and the failure is thrown.
 */
export function withCompanions(
  main: Worker,
  companions: readonly Pick<Worker, 'run' | 'shutdown' | 'getState'>[],
): Worker {
  if (companions.length === 0) return main;
  const run = main.run.bind(main);
  const shutdown = main.shutdown.bind(main);
  const stopAll = () => {
    for (const w of [main, ...companions])
      if (w.getState() === 'RUNNING') (w === main ? shutdown : () => w.shutdown())();
  };
  main.run = async () => {
    const results = await Promise.allSettled(
      [run(), ...companions.map((w) => w.run())].map((p) =>
        p.catch((err: unknown) => {
          stopAll();
          throw err;
        }),
      ),
    );
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  };
  main.shutdown = () => {
    shutdown();
    for (const w of companions) if (w.getState() === 'RUNNING') w.shutdown();
  };
  return main;
}

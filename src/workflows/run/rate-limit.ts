/*
 * Where a rate-limited step runs: a task queue of its own, polled by the workers that know the pipeline
 * (createWorker's `pipelines`) with Temporal's task-queue rate limit, which the server enforces across all
 * pollers. Workflow-safe (no imports): the interpreter and the worker both use it. The queue name is
 * persisted in the commands of runs: never change it.
 */

/** Task queue of a rate-limited activity, next to the run's own queue. */
export function rateLimitedTaskQueue(taskQueue: string, activity: string): string {
  return `${taskQueue}--rate--${activity}`;
}

import { workflowInfo } from '@temporalio/workflow';
import { SCHEDULED_START_TIME_ATTRIBUTE } from './search-attributes';

/**
 * Schedule lag of a scheduled run: workflow time now (read in the first workflow task: when a worker
 * first handled the run) minus its nominal time, Temporal's `TemporalScheduledStartTime`. Undefined for
 * runs not started by a schedule. Reads only workflow info: no command, replay-safe.
 */
export function scheduleLagMs(): number | undefined {
  const nominal = workflowInfo().typedSearchAttributes.get(SCHEDULED_START_TIME_ATTRIBUTE);
  return nominal ? Date.now() - nominal.getTime() : undefined;
}

/** `{ lagMs }` for a run-finished event, or nothing for an unscheduled run. */
export function lagField(lagMs = scheduleLagMs()): { lagMs?: number } {
  return lagMs === undefined ? {} : { lagMs };
}

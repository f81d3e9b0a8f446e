import {
  WorkflowNotFoundError,
  type Client,
  type ScheduleExecutionResult,
  type WorkflowExecutionDescription,
} from '@temporalio/client';
import { describeScheduleIfAny } from '../client/describe-schedule';
import { skipReasonOf } from '../workflows/outcomes';
import { FIRST_TASK_MEMO, JUDGED_AT_MEMO } from '../workflows/run-types';
import type { JudgedAtRequest } from '../workflows/job-guard-defs';
import { OUTCOME_SEARCH_ATTRIBUTE } from '../workflows/search-attributes';

/*
 * When a late buffered run of a job (overlap BUFFER_ALL or BUFFER_ONE) is judged against its misfire grace,
 * asked of the server. After an outage Temporal starts the buffered runs one at a time, each once the one
 * before has closed, and takes its time to (0.2 to 1.8 s a run on a loaded dev server). APScheduler checks
 * the missed run times one after the other as soon as its process is back, each when the one before has
 * been skipped or has finished: a buffered run is judged at that instant, so Temporal's own time between
 * runs does not count against the grace, while the job's work and any wait for a worker do.
 */

/** The run the schedule started just before `workflowId`, from the schedule's recent actions. */
function predecessorOf(
  actions: ScheduleExecutionResult[],
  workflowId: string,
): ScheduleExecutionResult['action']['workflow'] | undefined {
  const mine = actions.findIndex((a) => a.action.workflow.workflowId === workflowId);
  // The schedule records an action once the start returned, so a run may be handled before it shows.
  // Under a buffering policy nothing starts while it is open: the newest action is then its predecessor.
  const index = mine >= 0 ? mine - 1 : actions.length - 1;
  return index >= 0 ? actions[index]!.action.workflow : undefined;
}

/** A memo field holding an instant (ISO 8601), in ms; undefined when absent. */
function memoInstant(run: WorkflowExecutionDescription, key: string): number | undefined {
  const value = run.memo?.[key];
  return typeof value === 'string' ? Date.parse(value) : undefined;
}

/**
 * When a closed run would have ended had Temporal started it at once: the instant it was judged at (its
 * memo, else its first workflow task) if it skipped itself as a misfire, else that instant plus its own
 * time with a worker (first workflow task to close).
 */
function readyAfter(run: WorkflowExecutionDescription, closedAt: number): number {
  const judgedAt = memoInstant(run, JUDGED_AT_MEMO);
  const firstTask = memoInstant(run, FIRST_TASK_MEMO);
  // A run without them was judged at its first task; only its close is known: count from there.
  if (judgedAt === undefined || firstTask === undefined) return closedAt;
  const skipped = skipReasonOf(run.typedSearchAttributes.get(OUTCOME_SEARCH_ATTRIBUTE)) === 'misfire';
  return skipped ? judgedAt : judgedAt + (closedAt - firstTask);
}

/**
 * The instant a late buffered run is judged at, when it was queued behind its predecessor in the schedule
 * (the predecessor closed after this run came due); undefined when it was not, and is judged at its own
 * first workflow task. Queued, it is judged when it could have started had Temporal started each buffered
 * run at once (see {@link readyAfter}; not before its nominal time), plus the time it itself waited for a
 * worker once Temporal started it (so a second outage still counts).
 */
export async function queuedJudgedAt(client: Client, req: JudgedAtRequest): Promise<Date | undefined> {
  const description = await describeScheduleIfAny(client, req.jobId);
  if (!description) return undefined;
  // Only these policies queue an occurrence behind the open run.
  const overlap = description.policies.overlap;
  if (overlap !== 'BUFFER_ALL' && overlap !== 'BUFFER_ONE') return undefined;
  const previous = predecessorOf(description.info.recentActions, req.workflowId);
  if (!previous) return undefined;
  let before, own;
  try {
    [before, own] = await Promise.all([
      client.workflow.getHandle(previous.workflowId, previous.firstExecutionRunId).describe(),
      client.workflow.getHandle(req.workflowId, req.runId).describe(),
    ]);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
  const nominal = Date.parse(req.nominal);
  const closedAt = before.closeTime?.getTime();
  if (closedAt === undefined || closedAt < nominal) return undefined;
  const waitedForWorker = Math.max(0, Date.parse(req.firstTask) - own.startTime.getTime());
  return new Date(Math.max(nominal, readyAfter(before, closedAt)) + waitedForWorker);
}

import {
  ScheduleNotFoundError,
  WorkflowNotFoundError,
  type Client,
  type ScheduleExecutionResult,
} from '@temporalio/client';
import { JUDGED_AT_MEMO } from '../workflows/run-types';
import { OUTCOME_SEARCH_ATTRIBUTE } from '../workflows/search-attributes';

/*
 * When a late buffered run of a job (overlap BUFFER_ALL or BUFFER_ONE) is judged against its misfire grace,
 * asked of the server. After an outage Temporal starts the buffered runs one at a time, each once the one
 * before has closed; the time that takes is Temporal's, not the job's, so a run queued behind runs that
 * skipped themselves as misfires is judged when its predecessor was, as APScheduler checks each missed
 * run time in one pass when a worker is back.
 */

/** What {@link inheritedJudgedAt} is asked. Times are ISO 8601 strings (activity input is JSON). */
export interface JudgedAtRequest {
  jobId: string;
  /** The asking run. */
  workflowId: string;
  runId: string;
  /** The run's nominal time. */
  nominal: string;
  /** Its first workflow task: when a worker first handled it. */
  firstTask: string;
}

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

/**
 * The instant a late buffered run is judged at, when it inherits it; undefined when it is judged at its
 * own first workflow task. It inherits when its predecessor in the schedule skipped itself as a misfire
 * and was judged at or after this run's nominal time (so this run was already due while a worker was
 * there, and waited only for Temporal to start it): the predecessor's judged-at instant plus the time this
 * run itself then waited for a worker after Temporal started it (so a second outage still counts). A
 * predecessor that ran passes nothing on: the wait behind it was the job's own work.
 */
export async function inheritedJudgedAt(client: Client, req: JudgedAtRequest): Promise<Date | undefined> {
  let description;
  try {
    description = await client.schedule.getHandle(req.jobId).describe();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return undefined;
    throw err;
  }
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
  const outcome = before.typedSearchAttributes.get(OUTCOME_SEARCH_ATTRIBUTE);
  const judged = before.memo?.[JUDGED_AT_MEMO];
  if (before.status.name !== 'COMPLETED' || outcome !== 'skipped:misfire' || typeof judged !== 'string') {
    return undefined;
  }
  const judgedAt = Date.parse(judged);
  if (!(judgedAt >= Date.parse(req.nominal))) return undefined;
  const waitedForWorker = Math.max(0, Date.parse(req.firstTask) - own.startTime.getTime());
  return new Date(judgedAt + waitedForWorker);
}

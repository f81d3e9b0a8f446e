import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { AlertEvaluatorStartError, fromWireError } from '../errors';
import {
  ALERT_EVALUATOR_WORKFLOW_TYPE,
  alertCountsChangedSignal,
  alertEvaluatorWorkflowId,
  type AlertEvaluatorInput,
} from '../../workflows/alerts/evaluator-defs';

/*
 * The client side of the shared alert evaluator (workflows/alerts/evaluator-workflow.ts): started by every
 * alert worker when it starts and by a scheduler before its first write of a job with alerts to evaluate
 * (one call per process and queue; a running evaluator is kept), and told of triggers and backfills.
 * Nothing a job needs is sent to it: it reads the jobs from their schedules.
 */

/**
 * Starts the evaluator of `taskQueue` unless one runs (idempotent; a failed or terminated one is started
 * again).
 */
export async function ensureAlertEvaluator(
  client: Client,
  taskQueue: string,
  options: Pick<AlertEvaluatorInput, 'heartbeatTimeoutMs'> = {},
): Promise<void> {
  const input: AlertEvaluatorInput = { taskQueue, ...options };
  try {
    await client.workflow.start(ALERT_EVALUATOR_WORKFLOW_TYPE, {
      workflowId: alertEvaluatorWorkflowId(taskQueue),
      taskQueue,
      args: [input],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    // A server away is said as such (ServerUnreachableError...); anything else names the evaluator.
    throw fromWireError(err) ?? new AlertEvaluatorStartError(taskQueue, err);
  }
}

/**
 * The settings the last run of the evaluator of `taskQueue` was started with (its alert worker's
 * `evaluator.heartbeatTimeoutMs`), or none when it never ran or its history is gone: a repair starts it
 * again as its worker had configured it, not with the defaults. One call for one event.
 */
export async function lastAlertEvaluatorSettings(
  client: Client,
  taskQueue: string,
): Promise<Pick<AlertEvaluatorInput, 'heartbeatTimeoutMs'>> {
  try {
    // Its first event only (the evaluator's history runs to thousands of events before it continues as new).
    const { history } = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId: alertEvaluatorWorkflowId(taskQueue) },
      maximumPageSize: 1,
    });
    const payloads = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
    if (!payloads?.length) return {};
    const input = await decodeFromPayloadsAtIndex<AlertEvaluatorInput>(
      client.options.loadedDataConverter,
      0,
      payloads,
    );
    return typeof input?.heartbeatTimeoutMs === 'number'
      ? { heartbeatTimeoutMs: input.heartbeatTimeoutMs }
      : {};
  } catch {
    // Never ran, or closed past retention: the defaults.
    return {};
  }
}

/**
 * A scheduler's memo of the evaluators it made sure of: one start call per process and queue, so a write
 * of a job costs what a raw schedule's does.
 */
export class AlertEvaluatorStarter {
  private readonly started = new Map<string, Promise<void>>();
  constructor(private readonly client: Client) {}

  /**
   * Ensures the evaluator of `taskQueue` once; a failed call is tried again at the next write. `written`:
   * the write that needs it has landed (its error then says so).
   */
  async ensure(taskQueue: string, written = false): Promise<void> {
    let pending = this.started.get(taskQueue);
    if (!pending) {
      pending = ensureAlertEvaluator(this.client, taskQueue).catch((err: unknown) => {
        this.started.delete(taskQueue);
        throw err;
      });
      this.started.set(taskQueue, pending);
    }
    try {
      await pending;
    } catch (err) {
      if (written && err instanceof AlertEvaluatorStartError) {
        throw new AlertEvaluatorStartError(taskQueue, err.cause, true);
      }
      throw err;
    }
  }
}

/**
 * Tells the evaluator that a trigger or backfill of the job was just sent: it reads the job's counts
 * within a minute (an overlap skip of it is counted at once). Best effort: without it they are read after
 * the job's next nominal time.
 */
export async function countsChanged(client: Client, jobId: string, taskQueue: string): Promise<void> {
  try {
    await client.workflow
      .getHandle(alertEvaluatorWorkflowId(taskQueue))
      .signal(alertCountsChangedSignal, jobId);
  } catch {
    // No evaluator runs yet, or the signal was lost: the trigger itself landed, which is what was asked.
  }
}

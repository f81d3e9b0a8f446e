import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import {
  ALERT_EVALUATOR_WORKFLOW_TYPE,
  type AlertEvaluatorCarry,
} from '../../workflows/alerts/evaluator-defs';
import { missingCodecError, PayloadDecryptionError } from '../../codec/errors';
import { describeJobIfAny } from './store/describe-job';
import { JobAlertsUnreadableError } from '../errors';
import { inLanes } from '../in-lanes';
import { listSchedulesReadable, readingClient } from '../schedule-listing';
import { decodeJobRecord } from './store/job-record';
import { ourJobMemo } from './store/schedule-memo';

/*
 * Jobs whose alerts are not being evaluated, for `tflow doctor`: a job whose alert targets an edit made
 * outside temporal-flow lost (see JobRecord.alertsLost), a job the alert evaluator keeps failing to read
 * (its read is retried for as long as it fails: an overloaded server, a codec key the alert worker lacks,
 * a permission), an evaluator that cannot run, and a job this client cannot read at all (encrypted under a codec it lacks), which
 * it therefore cannot judge. Nothing here repairs: each finding says what to do.
 */

/** Why a job's alerts are not evaluated. */
export type JobAlertProblemKind = 'alerts-lost' | 'alerts-unevaluable' | 'unreadable';

/** One job whose alerts are not evaluated, or that this client cannot judge. */
export interface JobAlertProblem {
  jobId: string;
  kind: JobAlertProblemKind;
  /** What is wrong, in plain words. */
  summary: string;
}

/**
 * An error of a job this client cannot decode: no codec, a key it lacks, or a key of the same id with
 * other bytes (another environment's), or its alerts attribute unreadable. Such a job is reported as
 * unreadable, never allowed to fail the check for every other job.
 */
export function undecodable(err: unknown): boolean {
  return (
    err instanceof JobAlertsUnreadableError ||
    err instanceof PayloadDecryptionError ||
    missingCodecError(err) !== undefined
  );
}

/** Failed reads in a row before a job is reported (the first ones can be a passing blip). */
export const UNEVALUABLE_AFTER_ATTEMPTS = 3;
const DESCRIBE_CONCURRENCY = 8;

/**
 * The jobs of the client's namespace whose alerts are not evaluated (or cannot be judged by this client),
 * sorted by job id. Each job is described (strongly consistent); each running alert evaluator too.
 */
export async function findJobAlertProblems(client: Client): Promise<JobAlertProblem[]> {
  const jobIds: string[] = [];
  for await (const s of listSchedulesReadable(client)) {
    if (ourJobMemo(s.memo, s.action?.workflowType)) jobIds.push(s.scheduleId);
  }
  const evaluators: string[] = [];
  const query = `WorkflowType = '${ALERT_EVALUATOR_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'`;
  for await (const wf of readingClient(client).workflow.list({ query })) evaluators.push(wf.workflowId);

  const found: JobAlertProblem[] = [];
  await inLanes(jobIds, DESCRIBE_CONCURRENCY, async (jobId) => {
    let lost: string[] | undefined;
    try {
      const d = await describeJobIfAny(client, jobId);
      lost = d && decodeJobRecord(undefined, d.action.memo)?.alertsLost;
    } catch (err) {
      if (!undecodable(err)) throw err;
      found.push({
        jobId,
        kind: 'unreadable',
        summary: `job "${jobId}" cannot be read by this client (encrypted under a codec key it lacks): its alerts are not judged here`,
      });
      return;
    }
    if (lost && lost.length > 0) {
      found.push({
        jobId,
        kind: 'alerts-lost',
        summary: `job "${jobId}" lost its alert target${lost.length === 1 ? '' : 's'} ${lost.join(', ')} to an edit made outside temporal-flow (without a codec, the copy that survives such an edit holds webhooks only redacted): those alerts are not raised; set them again with modifyJob or apply the job's file`,
      });
    }
  });
  await inLanes(evaluators, DESCRIBE_CONCURRENCY, async (workflowId) => {
    let raw;
    try {
      raw = (await client.workflow.getHandle(workflowId).describe()).raw;
    } catch {
      return; // ended since the listing
    }
    const evaluation = raw.pendingActivities?.[0];
    if (evaluation && (evaluation.attempt ?? 0) >= UNEVALUABLE_AFTER_ATTEMPTS) {
      found.push({
        jobId: workflowId,
        kind: 'alerts-unevaluable',
        summary: `the alert evaluator ${workflowId} has failed ${evaluation.attempt} times in a row (last: ${evaluation.lastFailure?.message ?? 'no message'}): the silent and missed alerts of its jobs are not evaluated until it runs again`,
      });
    }
    // Its own code cannot run (a codec key its worker lacks, most often).
    const task = raw.pendingWorkflowTask;
    if (task && (task.attempt ?? 0) >= UNEVALUABLE_AFTER_ATTEMPTS) {
      found.push({
        jobId: workflowId,
        kind: 'alerts-unevaluable',
        summary: `the alert evaluator ${workflowId} has failed ${task.attempt} workflow tasks in a row (its worker cannot run it: often a codec key the alert worker lacks; its log says why): the silent and missed alerts of its jobs are not evaluated`,
      });
    }
    // The jobs it keeps failing to read, as its last heartbeat says.
    const details = evaluation?.heartbeatDetails?.payloads;
    if (!details || details.length === 0) return;
    let carry: AlertEvaluatorCarry | undefined;
    try {
      carry = await decodeFromPayloadsAtIndex<AlertEvaluatorCarry>(
        client.options.loadedDataConverter,
        0,
        details,
      );
    } catch {
      return; // a heartbeat this client cannot decode: the evaluator's own log says what fails
    }
    for (const [jobId, attempts] of Object.entries(carry?.failing ?? {})) {
      if (attempts < UNEVALUABLE_AFTER_ATTEMPTS) continue;
      found.push({
        jobId,
        kind: 'alerts-unevaluable',
        summary: `the alert evaluator ${workflowId} has failed to read job "${jobId}" ${attempts} times in a row (its log says why: often a codec key the alert worker lacks): its silent and missed alerts are not evaluated until a read succeeds`,
      });
    }
  });
  // Several evaluators (one per alert queue) can fail to read one job they cannot decode: said once.
  const once = new Map<string, JobAlertProblem>();
  for (const f of found) if (!once.has(`${f.kind} ${f.jobId}`)) once.set(`${f.kind} ${f.jobId}`, f);
  return [...once.values()].sort((a, b) =>
    a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : a.kind < b.kind ? -1 : 1,
  );
}

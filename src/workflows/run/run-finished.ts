/*
 * What a run reports when it starts and ends (the run-started and run-finished sink events: logs and
 * metrics on the worker), and its schedule lag. Built in one place for the interpreter and the job guards.
 */
import { proxySinks, workflowInfo } from '@temporalio/workflow';
import type { PipelineRunInput } from '../run-types';
import type { RunEventBase, RunFinishedEvent, TflowSinks } from '../sinks';
import { SCHEDULED_START_TIME_ATTRIBUTE } from '../search-attributes';

const { tflow } = proxySinks<TflowSinks>();

/**
 * Schedule lag of a scheduled run: workflow time now (read in the first workflow task: when a worker
 * first handled the run) minus its nominal time, Temporal's `TemporalScheduledStartTime`. Undefined for
 * runs not started by a schedule. Reads only workflow info: no command, replay-safe.
 */
export function scheduleLagMs(): number | undefined {
  const nominal = workflowInfo().typedSearchAttributes.get(SCHEDULED_START_TIME_ATTRIBUTE);
  return nominal ? Date.now() - nominal.getTime() : undefined;
}

/** What every event of this run says: pipeline, job, ids, nominal time. Reads workflow info only. */
function eventBaseOf(input: PipelineRunInput): RunEventBase {
  const info = workflowInfo();
  const nominal = info.typedSearchAttributes.get(SCHEDULED_START_TIME_ATTRIBUTE);
  return {
    pipeline: input.spec.name,
    ...(input.job ? { jobId: input.job.jobId } : {}),
    workflowId: info.workflowId,
    runId: info.runId,
    ...(nominal ? { nominalTime: nominal.toISOString() } : {}),
  };
}

/** Emits the run-started event of this run (a sink: not called again on replay, no command). */
export function reportRunStarted(input: PipelineRunInput): void {
  tflow.runStarted(eventBaseOf(input));
}

/** The run's nominal (scheduled) time as UTC ISO without milliseconds (`2027-10-31T00:30:00Z`), if scheduled. */
export function nominalStartIso(): string | undefined {
  const nominal = workflowInfo().typedSearchAttributes.get(SCHEDULED_START_TIME_ATTRIBUTE);
  return nominal ? nominal.toISOString().replace('.000Z', 'Z') : undefined;
}

/** How a run ended, for {@link reportRunFinished}; the rest of the event comes from the run itself. */
export interface RunEnd {
  status: RunFinishedEvent['status'];
  durationMs: number;
  /** Measured once, in the run's first workflow task (before any guard waited on a slot). */
  lagMs: number | undefined;
  skipReason?: string;
  failedStep?: string;
}

/** Emits the run-finished event (logs, metrics) of this run: the one place that builds it. */
export function reportRunFinished(input: PipelineRunInput, end: RunEnd): void {
  const { lagMs, ...rest } = end;
  tflow.runFinished({
    ...eventBaseOf(input),
    ...rest,
    ...(lagMs === undefined ? {} : { lagMs }),
  });
}

/*
 * The raw side of bench/jobs-at-rest.bench.ts and bench/scheduler-ops.bench.ts: a job created as a plain
 * Temporal schedule through the ScheduleClient, the same schedule PipelineScheduler writes (its action,
 * memos and search attribute), so that only our layer is measured.
 */
import type { ScheduleOptions } from '@temporalio/client';
import { runStartOptions } from '../src/client/runs/run-start';
import { SCHEDULE_MEMO_KEY } from '../src/client/jobs/store/schedule-memo';
import { JOB_RECORD_MEMO_KEY, encodeListedRecord, type JobRecord } from '../src/client/jobs/store/job-record';
import type { PipelineSpec } from '../src/pipeline/spec';
import { PIPELINE_WORKFLOW_TYPE } from '../src/workflows/run-types';
import { JOB_SEARCH_ATTRIBUTE } from '../src/workflows/search-attributes';

/** A cron job of `spec` on `taskQueue`, as `scheduler.schedule(pipeline, { cron, timezone, args, paused })` makes it. */
export interface RawJob {
  spec: PipelineSpec;
  taskQueue: string;
  cron: string;
  timezone: string;
  /** @default [] */
  args?: unknown[];
  /** @default false */
  paused?: boolean;
}

/** The schedule options of the job of each id (`client.schedule.create(rawSchedule(id))`). */
export function rawJobSchedules(job: RawJob): (id: string) => ScheduleOptions {
  const { spec, taskQueue, cron, timezone } = job;
  const record: JobRecord = { v: 1, trigger: { cron, timezone }, timezone, policies: {} };
  return (id) => ({
    scheduleId: id,
    spec: { cronExpressions: [cron], timezone },
    action: {
      type: 'startWorkflow',
      workflowType: PIPELINE_WORKFLOW_TYPE,
      workflowId: id,
      taskQueue,
      memo: { [JOB_RECORD_MEMO_KEY]: record },
      ...runStartOptions(spec, job.args ?? [], { job: { jobId: id } }),
    },
    policies: { overlap: 'SKIP', pauseOnFailure: false },
    ...(job.paused ? { state: { paused: true } } : {}),
    memo: { [SCHEDULE_MEMO_KEY]: { v: 1, pipeline: spec.name } },
    typedSearchAttributes: [{ key: JOB_SEARCH_ATTRIBUTE, value: encodeListedRecord(record)! }],
  });
}

import { randomUUID } from 'node:crypto';
import {
  ScheduleAlreadyRunning,
  type Client,
  type ScheduleOptions,
  type ScheduleUpdateOptions,
} from '@temporalio/client';
import { toPipelineSpec, type PipelineLike } from '../pipeline/builder';
import { compileTrigger, validateTimezone } from '../schedule/compile-trigger';
import { compilePolicies, type JobPolicies } from '../schedule/policies';
import type {
  CronTrigger,
  CalendarTrigger,
  IntervalTrigger,
  OneOffTrigger,
  Trigger,
} from '../schedule/trigger-types';
import { PIPELINE_WORKFLOW_TYPE, type RunJobContext } from '../workflows/run-types';
import { translateScheduleError } from './errors';
import { JOB_MEMO_KEY, type JobMemo } from './job-memo';
import { checkKnownSteps, runStartOptions, stepNames } from './run-start';
import { InvalidTriggerError } from '../schedule/errors';
import { previewTrigger, type TriggerPreview } from '../schedule/preview';

export interface PipelineSchedulerOptions {
  /** Task queue the workers poll. */
  taskQueue: string;
  /** Time zone of triggers that name none. @default 'UTC' */
  timezone?: string;
  /** The worker's steps (object or names): jobs naming another step are rejected before anything is created. */
  steps?: Record<string, unknown> | readonly string[];
}

/** What every job takes besides its trigger. */
export interface JobOptions extends JobPolicies {
  /** Id of the job, which is the Temporal Schedule id. @default `<pipeline name>-<uuid>` */
  jobId?: string;
  /** Arguments of the pipeline's first step. @default [] */
  args?: unknown[];
  /** Free text shown with the job (the schedule's note). */
  note?: string;
  /** Create the job paused. @default false */
  paused?: boolean;
  /** When a job with this id exists, update it in place instead of failing (APScheduler's `replace_existing`). @default false */
  replaceExisting?: boolean;
}

export type CronJobOptions = JobOptions & (CronTrigger | CalendarTrigger);
export type IntervalJobOptions = JobOptions & IntervalTrigger;
export type OneOffJobOptions = JobOptions & OneOffTrigger;

const TRIGGER_KEYS = [
  'cron',
  'calendar',
  'every',
  'seconds',
  'minutes',
  'hours',
  'days',
  'weeks',
  'offset',
  'runAt',
  'timezone',
] as const;
const JOB_KEYS = ['jobId', 'args', 'note', 'paused', 'replaceExisting'] as const;
const POLICY_KEYS = [
  'maxInstances',
  'coalesce',
  'misfireGraceTime',
  'overlap',
  'catchupWindow',
  'pauseOnFailure',
  'jitter',
  'startAt',
  'endAt',
] as const;

function splitOptions(opts: JobOptions & Trigger): {
  trigger: Trigger;
  job: JobOptions;
  policies: JobPolicies;
} {
  const trigger: Record<string, unknown> = {};
  const job: Record<string, unknown> = {};
  const policies: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(opts)) {
    if (value === undefined) continue;
    if ((TRIGGER_KEYS as readonly string[]).includes(key)) trigger[key] = value;
    else if ((JOB_KEYS as readonly string[]).includes(key)) job[key] = value;
    else if ((POLICY_KEYS as readonly string[]).includes(key)) policies[key] = value;
    else {
      throw new InvalidTriggerError(
        key,
        `unknown job option "${key}"; allowed: ${[...TRIGGER_KEYS, ...JOB_KEYS, ...POLICY_KEYS].join(', ')}`,
      );
    }
  }
  return { trigger: trigger, job: job, policies: policies };
}

/**
 * Schedules pipelines as Temporal Schedules, with taskiq-flow's verbs and APScheduler's policies.
 *
 * ```ts
 * const scheduler = new PipelineScheduler(client, { taskQueue: 'pipelines', timezone: 'UTC' });
 * await scheduler.schedule(etl, { cron: '0 2 * * *', timezone: 'Europe/Paris', jobId: 'etl-nightly' });
 * ```
 */
export class PipelineScheduler {
  readonly timezone: string;
  private readonly knownSteps: string[] | undefined;

  constructor(
    readonly client: Client,
    readonly options: PipelineSchedulerOptions,
  ) {
    this.timezone = validateTimezone(options.timezone ?? 'UTC');
    this.knownSteps = stepNames(options.steps);
  }

  /** Creates a cron or calendar job and returns its id. */
  async schedule(p: PipelineLike, opts: CronJobOptions): Promise<string> {
    return this.createJob(p, opts);
  }

  /** Creates an interval job (`every: '30s'`, or `{ minutes: 5 }`, optionally anchored with `offset`). */
  async scheduleInterval(p: PipelineLike, opts: IntervalJobOptions): Promise<string> {
    return this.createJob(p, opts);
  }

  /** Creates a one-off job: a schedule with a single action at `runAt`. */
  async scheduleAt(p: PipelineLike, opts: OneOffJobOptions): Promise<string> {
    return this.createJob(p, opts);
  }

  /** Runs a job now, with the job's own overlap policy (the SDK's default would be ALLOW_ALL). */
  async triggerJob(jobId: string): Promise<void> {
    const handle = this.client.schedule.getHandle(jobId);
    try {
      const description = await handle.describe();
      await handle.trigger(description.policies.overlap);
    } catch (err) {
      translateScheduleError(err, jobId);
    }
  }

  /** Deletes a job: future runs are cancelled; a run in flight continues. */
  async removeJob(jobId: string): Promise<void> {
    try {
      await this.client.schedule.getHandle(jobId).delete();
    } catch (err) {
      translateScheduleError(err, jobId);
    }
  }

  /** Validates everything, then creates (or with replaceExisting, updates) the schedule in one call. */
  private async createJob(p: PipelineLike, opts: JobOptions & Trigger): Promise<string> {
    const { trigger, job, policies: policyOptions } = splitOptions(opts);
    const spec = toPipelineSpec(p);
    checkKnownSteps(spec, this.knownSteps);
    const compiled = compileTrigger(trigger, this.timezone);
    const policies = compilePolicies(policyOptions);
    const jobId = job.jobId ?? `${spec.name}-${randomUUID()}`;
    if (job.args !== undefined && !Array.isArray(job.args)) {
      throw new InvalidTriggerError('args', 'args must be an array: the arguments of the first step');
    }
    const context: RunJobContext = {
      jobId,
      ...(policies.misfireGraceMs !== undefined ? { misfireGraceMs: policies.misfireGraceMs } : {}),
      ...(policies.maxInstances > 1 ? { maxInstances: policies.maxInstances } : {}),
    };
    const options = {
      scheduleId: jobId,
      spec: {
        ...compiled.spec,
        ...(policies.startAt ? { startAt: policies.startAt } : {}),
        ...(policies.endAt ? { endAt: policies.endAt } : {}),
        ...(policies.jitterMs !== undefined ? { jitter: policies.jitterMs } : {}),
      },
      action: {
        type: 'startWorkflow' as const,
        workflowType: PIPELINE_WORKFLOW_TYPE,
        workflowId: jobId,
        taskQueue: this.options.taskQueue,
        ...runStartOptions(spec, job.args ?? [], context),
      },
      policies: {
        overlap: policies.overlap,
        pauseOnFailure: policies.pauseOnFailure,
        ...(policies.catchupWindowMs !== undefined ? { catchupWindow: policies.catchupWindowMs } : {}),
      },
      state: {
        paused: job.paused ?? false,
        ...(job.note !== undefined ? { note: job.note } : {}),
        ...(compiled.remainingActions !== undefined ? { remainingActions: compiled.remainingActions } : {}),
      },
      memo: { [JOB_MEMO_KEY]: { v: 1, pipeline: spec.name } satisfies JobMemo },
    } satisfies ScheduleOptions;

    try {
      await this.client.schedule.create(options);
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning) || !job.replaceExisting)
        translateScheduleError(err, jobId);
      const { scheduleId: _id, memo: _memo, ...update } = options;
      await this.client.schedule.getHandle(jobId).update(() => update satisfies ScheduleUpdateOptions);
    }
    return jobId;
  }

  /**
   * The next `n` fire times of a trigger after `from` (default now), in the trigger's time zone (else the
   * scheduler's) and in UTC, computed locally exactly as the Temporal server will, plus a warning for every
   * date in the next 12 months where DST makes the job skip a run or run twice. Nothing is created.
   *
   * @throws InvalidTriggerError for an invalid trigger, `n` or `from`.
   */
  preview(trigger: Trigger, n: number, opts: { from?: Date | string } = {}): TriggerPreview {
    return previewTrigger(trigger, n, { ...opts, defaultTimezone: this.timezone });
  }
}

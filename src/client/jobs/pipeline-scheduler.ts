import { ScheduleAlreadyRunning, type Client, type ScheduleDescription } from '@temporalio/client';
import { resolveTracing, tracedClient, type TracingOption } from '../tracing';
import type { PipelineLike } from '../../pipeline/builder';
import type { DstPolicy } from '../../schedule/dst-policy';
import { describeValue, InvalidArgumentError } from '../../errors';
import { parseInstant } from '../../parse/instant';
import type { JobPolicies } from '../../schedule/policies';
import { previewTrigger, type PreviewOptions, type TriggerPreview } from '../../schedule/preview';
import type { DryRunOptions, JobDryRun } from '../../schedule/dry-run-types';
import { dryRun, dryRunInWindow, readDryRunWindow, type DryRunJob } from './job-dry-run';
import type { Trigger } from '../../schedule/trigger-types';
import { ForeignScheduleError, translateScheduleError, translateServiceError } from '../errors';
import { describeJobIfAny, describeJobSchedule } from './store/describe-job';
import { withAlertsOfRecord } from './store/job-alerts-attribute';
import { jobFromDescription } from './job-describe';
import { listJobs } from './job-list';
import { listJobRuns } from './job-history';
import { backfillWindow } from './job-backfill';
import { ourJobMemo } from './store/schedule-memo';
import {
  parseJobChanges,
  type CronJobOptions,
  type IntervalJobOptions,
  type JobOptions,
  type ModifyJobOptions,
  type OneOffJobOptions,
} from './store/job-options';
import { computeStats } from './job-stats';
import type { JobDescription, JobFilter, JobHistoryOptions, JobStats, JobSummary } from './job-types';
import type { JobRun } from '../runs/run-types';
import { updateJob, type JobUpdateBuilder, type ScheduleWrite } from './store/send-update';
import {
  modifyUpdate,
  pauseUpdate,
  replaceUpdate,
  rescheduleUpdate,
  type JobWrite,
} from './store/build-updates';
import type { JobAlerts } from './store/job-alerts';
import { afterJobWrite } from './job-followups';
import { decodeJobRecord } from './store/job-record';
import { DEFAULT_WATCHDOG_TASK_QUEUE } from '../../workflows/alerts/watchdog-defs';
import { AlertEvaluatorStarter, countsChanged } from './alert-evaluator';
import {
  compileJobDefaults,
  compileNewTrigger,
  prepareJob,
  type JobDefaults,
  type PreparedJob,
} from './job-compile';
import { planJobs } from './job-plan';
import { applyPlan } from './job-apply';
import { toJobSet } from './job-set';
import type { ApplyResult, JobPlan, JobSet, JobSetDefinition, PlanOptions } from './job-plan-types';

export type { CronJobOptions, IntervalJobOptions, JobOptions, ModifyJobOptions, OneOffJobOptions };

/**
 * The alert options (`onMissed`, `onLate`/`lateAfter`, `expectSuccessWithin`/`onSilent`) are the defaults
 * of the jobs this scheduler creates: a job's own value wins, key by key.
 */
export interface PipelineSchedulerOptions extends JobAlerts {
  /** Task queue the workers poll. */
  taskQueue: string;
  /** Time zone of triggers that name none. @default 'UTC' */
  timezone?: string;
  /**
   * DST policy of cron and calendar jobs that set no `dst` (stored with each job it applies to). See
   * docs/cron-and-timezones.md. @default Temporal's own behaviour
   */
  dst?: DstPolicy;
  /** The worker's steps (object or names): jobs naming another step are rejected before anything is created. */
  steps?: Record<string, unknown> | readonly string[];
  /** Activity run on the worker when a scheduled run of any job fails for good (a job's own `onError` wins). */
  onError?: string;
  /**
   * Default `misfireGraceTime` of the jobs this scheduler creates (APScheduler's `job_defaults`): a job that
   * sets none gets this one, enforced and shown as if given. It also decides how late a one-off's `runAt`
   * may be to run at once (see {@link PipelineScheduler.scheduleAt}). @default none
   */
  misfireGraceTime?: JobPolicies['misfireGraceTime'];
  /**
   * Task queue of the jobs' watchdogs (dead-man switch, server-counted misses): a worker made by
   * `createWatchdogWorker` must poll it. @default 'tflow-watchdog'
   */
  watchdogTaskQueue?: string;
  /**
   * The summary and details of each scheduled run, for the Temporal UI (Temporal's user metadata, written
   * in the schedule's action and copied by the server into every run it starts), as
   * `PipelineClientOptions.runMetadata`. `false` leaves them out of the jobs this scheduler creates or
   * replaces: about 180 bytes of history less per run, and less for the worker to decode, for runs nobody
   * reads in the UI (which then names a run `pipelineWorkflow`; its `TflowPipeline` and
   * `TemporalScheduledById` search attributes still say the pipeline and the job). The choice is the
   * job's: kept by every later write (modifyJob, `tflow apply`, a scheduler that sets no `runMetadata`),
   * changed only by a scheduler that sets it and replaces the job. @default true
   */
  runMetadata?: boolean;
  /** Close the client's connection on shutdown(). @default false (the connection belongs to the caller) */
  closeConnectionOnShutdown?: boolean;
  /**
   * OpenTelemetry traces on Temporal's client interceptor, as `PipelineClientOptions.tracing`: the
   * scheduler's calls to workflows (a job's watchdog) are spans of the caller's trace. A job's runs are
   * started by its Temporal schedule (each fire, `triggerJob`, a backfill), which carries no trace
   * context: on a worker with `tracing`, each is the root of its own trace, its span naming the job
   * (`tflow.job_id`) and the nominal time (`tflow.nominal_time`). @default off
   */
  tracing?: TracingOption;
}

/**
 * Schedules pipelines as Temporal Schedules, with taskiq-flow's verbs and APScheduler's policies.
 *
 * ```ts
 * await using scheduler = new PipelineScheduler(client, { taskQueue: 'pipelines', timezone: 'UTC' });
 * await scheduler.schedule(etl, { cron: '0 2 * * *', timezone: 'Europe/Paris', jobId: 'etl-nightly' });
 * await scheduler.pauseJob('etl-nightly', 'maintenance');
 * ```
 */
export class PipelineScheduler {
  readonly timezone: string;
  /** What the jobs written here get when they set none of their own (checked at construction). */
  private readonly defaults: JobDefaults;
  /**
   * Jobs this scheduler created or has seen to be ours: removeJob skips their ownership check (one call
   * instead of two). A job id only leaves the set when removed through this scheduler.
   */
  private readonly ownJobs = new Set<string>();
  private readonly evaluators: AlertEvaluatorStarter;

  /** The client jobs are written with (with tracing: the given one plus Temporal's tracing interceptor). */
  readonly client: Client;

  constructor(
    client: Client,
    readonly options: PipelineSchedulerOptions,
  ) {
    const tracing = resolveTracing(options.tracing);
    this.client = tracing ? tracedClient(client, tracing) : client;
    this.defaults = compileJobDefaults(options);
    this.timezone = this.defaults.timezone;
    this.evaluators = new AlertEvaluatorStarter(this.client);
  }

  /** Checks that the server answers (taskiq-flow's `startup`). Optional: every verb connects lazily. */
  async start(): Promise<void> {
    await this.client.connection.ensureConnected();
  }

  /** Releases the connection when `closeConnectionOnShutdown` (taskiq-flow's `shutdown`). Jobs keep running: they live in Temporal. */
  async shutdown(): Promise<void> {
    if (this.options.closeConnectionOnShutdown) await this.client.connection.close();
  }

  /** `await using scheduler = new PipelineScheduler(...)` calls {@link PipelineScheduler.shutdown}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.shutdown();
  }

  /** Creates a cron or calendar job and returns its id. */
  async schedule(p: PipelineLike, opts: CronJobOptions): Promise<string> {
    return this.createJob(p, opts);
  }

  /** Creates an interval job (`every: '30s'`, or `{ minutes: 5 }`, optionally anchored with `offset`). */
  async scheduleInterval(p: PipelineLike, opts: IntervalJobOptions): Promise<string> {
    return this.createJob(p, opts);
  }

  /**
   * Creates a one-off job: a schedule with a single action at `runAt`, deleted once that run ends. A `runAt`
   * in the past (or less than a second ahead) runs at once when it is late by no more than the job's
   * `misfireGraceTime`, else the scheduler's, else 1 s (so `runAt: new Date()` works).
   *
   * @throws RunAtInPastError when it is later than that: nothing is created.
   */
  async scheduleAt(p: PipelineLike, opts: OneOffJobOptions): Promise<string> {
    return this.createJob(p, opts);
  }

  /**
   * Lists jobs (one listing call per 1,000 schedules; `details: true` describes each for args and counters).
   * Schedules not created by temporal-flow are listed as `{ foreign: true }`; one-off jobs that have run
   * are left out. Listings are eventually consistent: a job created a moment ago may be missing.
   */
  async listJobs(filter: JobFilter & { details: true }): Promise<JobDescription[]>;
  async listJobs(filter?: JobFilter): Promise<JobSummary[]>;
  async listJobs(filter: JobFilter = {}): Promise<JobSummary[]> {
    return listJobs(this.client, filter);
  }

  /** The job as created (trigger, time zone, args, policies, note, paused) plus next runs, recent runs, counters. */
  async getJob(jobId: string): Promise<JobDescription> {
    return jobFromDescription(await this.describe(jobId));
  }

  /**
   * Changes when a job runs (cron, interval, runAt, time zone); everything else is kept. A `runAt` in the
   * past follows {@link PipelineScheduler.scheduleAt}'s rule, with the job's own `misfireGraceTime`.
   *
   * @throws RunAtInPastError for a runAt later than the grace allows; the job is left as it was.
   * @throws JobConflictError when concurrent edits kept winning (see docs/scheduling.md).
   */
  async rescheduleJob(jobId: string, trigger: Trigger): Promise<void> {
    const { given, compiled } = compileNewTrigger(trigger, this.defaults);
    const write = await this.update(jobId, (current) =>
      rescheduleUpdate(jobId, current, given, compiled, this.defaults.misfireGraceMs),
    );
    await this.afterWrite(jobId, write);
  }

  /** Changes what a job runs and how (args, note, policies, onError, alerts); when it runs is kept. */
  async modifyJob(jobId: string, changes: ModifyJobOptions): Promise<void> {
    // Validated whole before any call: a bad option changes nothing (see parseJobChanges).
    const checked = parseJobChanges(changes, this.defaults.knownSteps);
    const write = await this.update(jobId, (current) => modifyUpdate(jobId, current, checked));
    await this.afterWrite(jobId, write);
  }

  /** Pauses a job: no run starts until resumeJob(); a run in flight continues. */
  async pauseJob(jobId: string, note?: string): Promise<void> {
    const write = await this.update(jobId, (current) =>
      pauseUpdate(jobId, current, true, note ?? 'paused by temporal-flow'),
    );
    await this.afterWrite(jobId, write);
  }

  /** Resumes a paused job. */
  async resumeJob(jobId: string, note?: string): Promise<void> {
    const write = await this.update(jobId, (current) =>
      pauseUpdate(jobId, current, false, note ?? 'resumed by temporal-flow'),
    );
    await this.afterWrite(jobId, write);
  }

  /** Runs a job now, with the job's own overlap policy (the SDK's default would be ALLOW_ALL). */
  async triggerJob(jobId: string): Promise<void> {
    const d = await this.describeOurs(jobId);
    await this.client.schedule.getHandle(jobId).trigger(d.policies.overlap);
    await this.countsChanged(jobId, d);
  }

  /**
   * Runs every occurrence of a past window `[from, to]`, one run at a time (BUFFER_ALL: behind a run
   * already open, none skipped), or all at once for a job with `maxInstances > 1` (ALLOW_ALL, bounded by
   * its semaphore). A job with a DST policy runs exactly the times `preview` lists for the window,
   * whenever the job was written (see docs/scheduling.md, "Backfill").
   */
  async backfillJob(jobId: string, window: { from: Date | string; to: Date | string }): Promise<void> {
    const start = parseInstant(window.from, 'from');
    const end = parseInstant(window.to, 'to');
    if (end <= start) throw new InvalidArgumentError('to', 'backfill "to" must be after "from"');
    const d = await this.describeOurs(jobId);
    await backfillWindow(this.client, jobId, d, { start, end });
    await this.countsChanged(jobId, d);
  }

  /**
   * Deletes a job: future runs are cancelled; a run in flight continues. Its alerts end with it: the
   * alert evaluator reads the schedule before any alert it raises, and raises none for a job gone.
   */
  async removeJob(jobId: string): Promise<void> {
    if (!this.ownJobs.has(jobId)) await this.describeOurs(jobId);
    try {
      await this.client.schedule.getHandle(jobId).delete();
    } catch (err) {
      translateScheduleError(err, jobId);
    } finally {
      this.ownJobs.delete(jobId);
    }
  }

  /** Tells the job's alert evaluator that a trigger or backfill was sent, when the job has onMissed. */
  private async countsChanged(jobId: string, d: ScheduleDescription): Promise<void> {
    const record = decodeJobRecord(undefined, d.action.memo);
    if (record?.alerts?.onMissed === undefined) return;
    await countsChanged(this.client, jobId, record.alertQueue ?? DEFAULT_WATCHDOG_TASK_QUEUE);
  }

  /** The job's runs from Temporal visibility, newest first, skipped ones with their reason. */
  async getHistory(jobId: string, opts: JobHistoryOptions = {}): Promise<JobRun[]> {
    const limit = opts.limit ?? 20;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new InvalidArgumentError(
        'limit',
        `limit must be a whole number of 1 or more, got ${describeValue(limit)}`,
      );
    }
    const recent = await this.recentRuns(jobId);
    try {
      return await listJobRuns(this.client, jobId, limit, recent);
    } catch (err) {
      translateServiceError(err);
    }
  }

  /** Jobs, paused, running, next run, missed, skipped and failing jobs (describes every job). */
  async getStats(): Promise<JobStats> {
    const jobs = await this.listJobs({ details: true });
    try {
      return await computeStats(this.client, jobs);
    } catch (err) {
      translateServiceError(err);
    }
  }

  /**
   * Compares a jobs file (see {@link defineJobs}) with the namespace: each job is `create`, `update` (with
   * the field by field diff, in canonical form), `unchanged`, `blocked` (its id is held by a schedule this
   * set does not own) or, with `prune`, `delete` (a job of this set the file no longer lists); edits made
   * outside temporal-flow since the last apply show as `drift`. Reads only. See docs/scheduling.md#deploying-jobs.
   *
   * @throws JobSetError when a job is refused (every problem, each naming its job and option); nothing is read.
   */
  async plan(
    jobs: JobSet | JobSetDefinition,
    opts: PlanOptions & { adopt?: boolean } = {},
  ): Promise<JobPlan> {
    return planJobs(this.client, this.defaults, toJobSet(jobs), opts);
  }

  /**
   * Makes the namespace what a plan (from {@link PipelineScheduler.plan}) said, with conflict-token writes.
   *
   * @throws PlanStaleError when a job changed since the plan, PlanBlockedError when the plan has blocked
   * jobs: nothing is written then. ApplyFailedError when a write failed half way: it lists the jobs applied
   * (each job is as before or as planned).
   */
  async apply(plan: JobPlan): Promise<ApplyResult> {
    return applyPlan(this.client, this.defaults, plan);
  }

  /** Runs the schedule reports itself (none when the job is gone: its history still answers). */
  private async recentRuns(jobId: string): Promise<{ workflowId: string; runId: string }[]> {
    const d = await describeJobIfAny(this.client, jobId);
    if (!d) return [];
    return [
      ...d.info.recentActions.map((a) => a.action.workflow),
      ...d.info.runningActions.map((a) => a.workflow),
    ].map((w) => ({ workflowId: w.workflowId, runId: w.firstExecutionRunId }));
  }

  private async describe(jobId: string): Promise<ScheduleDescription> {
    try {
      return await describeJobSchedule(this.client, jobId);
    } catch (err) {
      translateScheduleError(err, jobId);
    }
  }

  /** Describes a job, refusing schedules temporal-flow did not create. */
  private async describeOurs(jobId: string): Promise<ScheduleDescription> {
    const d = await this.describe(jobId);
    if (!ourJobMemo(d.memo, d.action.workflowType)) throw new ForeignScheduleError(jobId);
    this.ownJobs.add(jobId);
    return d;
  }

  /** Updates one of our jobs from its current description, with its conflict token (see send-update.ts). */
  private async update<W extends ScheduleWrite>(jobId: string, build: JobUpdateBuilder<W>): Promise<W> {
    const write = await updateJob(this.client, jobId, build);
    this.ownJobs.add(jobId);
    return write;
  }

  /**
   * A write's last steps, from what it wrote: a due one-off's backfill; for a job whose alerts need
   * evaluating, the evaluator of its queue made sure of (one call per scheduler and queue).
   */
  private async afterWrite(jobId: string, write: JobWrite): Promise<void> {
    await afterJobWrite(this.client, jobId, write);
    // The job's own queue (its record names it; a job written by another scheduler keeps its own).
    const queue = write.record?.alertQueue ?? DEFAULT_WATCHDOG_TASK_QUEUE;
    if (write.alerts.watchdog) await this.evaluators.ensure(queue, true);
  }

  /** Starts the alert evaluator of this scheduler's queue unless it runs (once per scheduler). */
  private async ensureEvaluator(): Promise<void> {
    await this.evaluators.ensure(this.defaults.watchdogTaskQueue);
  }

  /**
   * schedule(), scheduleInterval(), scheduleAt(): validates and compiles everything (job-compile.ts),
   * then creates the schedule in one call (or with replaceExisting, replaces the job in place). A job
   * whose alerts need evaluating makes sure of its alert evaluator first (once per scheduler), so a job is
   * written whole or not at all.
   */
  private async createJob(p: PipelineLike, opts: JobOptions & Trigger): Promise<string> {
    const job = prepareJob(p, opts, this.defaults);
    if (job.alerts.watchdog) await this.ensureEvaluator();
    await this.createSchedule(job);
    return job.jobId;
  }

  /** Creates the job's schedule (true), or replaces the job's schedule in place (false) when asked. */
  private async createSchedule(job: PreparedJob): Promise<boolean> {
    const { jobId } = job;
    try {
      await this.client.schedule.create(
        await withAlertsOfRecord(this.client.options.loadedDataConverter, job.options, undefined),
      );
      this.ownJobs.add(jobId);
      return true;
    } catch (err) {
      const replace = err instanceof ScheduleAlreadyRunning && job.replaceExisting;
      if (!replace) translateScheduleError(err, jobId);
    }
    const write = await this.update(jobId, (current) => replaceUpdate(jobId, current, job, job.due));
    await this.afterWrite(jobId, write);
    return false;
  }

  /**
   * What a job would do in the window `(from, to]`, computed locally with nothing started: each time the
   * server fires it there, with the decision of its overlap policy and of the run guards (`run`, `buffered`,
   * `coalesced`, `skip` with a reason), under the assumptions given (`runDuration`, `workersDown`). See
   * {@link dryRun}. Given a job id, reads the job (one describe, as getJob) and uses its stored trigger,
   * time zone, policies and paused state; given job options, applies this scheduler's defaults
   * (`timezone`, `dst`, `misfireGraceTime`) as `schedule()` would.
   *
   * @throws JobNotFoundError, ForeignScheduleError for a job id; InvalidWindowError for a bad window.
   */
  async dryRun(
    job: string | DryRunJob,
    opts: Omit<DryRunOptions, 'defaultTimezone' | 'defaultDst'>,
  ): Promise<JobDryRun> {
    if (typeof job !== 'string') {
      const own = Object.fromEntries(Object.entries(job).filter(([, v]) => v !== undefined));
      return dryRun(
        { ...this.defaults.policies, ...own },
        {
          ...opts,
          defaultTimezone: this.timezone,
          ...(this.defaults.dst ? { defaultDst: this.defaults.dst } : {}),
        },
      );
    }
    const window = readDryRunWindow(opts); // a bad window is refused before any call
    const d = await this.getJob(job);
    if (d.foreign) throw new ForeignScheduleError(job);
    // The stored trigger carries the DST policy it was given (the scheduler's default included).
    return dryRunInWindow({ ...d.trigger, ...d.policies, paused: d.paused }, window, {
      defaultTimezone: d.timezone,
    });
  }

  /**
   * The next `n` fire times of a trigger after `from` (default now), in the trigger's time zone (else the
   * scheduler's) and in UTC, computed locally exactly as the Temporal server will, plus a warning for every
   * date in the next 12 months where DST makes the job skip a run or run twice, the dates its `exclude` /
   * `businessDays` leave out, and with `jitter` the window each run starts in. Nothing is created.
   *
   * @throws InvalidTriggerError for an invalid trigger, InvalidArgumentError for an invalid `n` or `from`.
   */
  preview(
    trigger: Trigger,
    n: number,
    opts: Omit<PreviewOptions, 'defaultTimezone' | 'defaultDst'> = {},
  ): TriggerPreview {
    return previewTrigger(trigger, n, {
      ...opts,
      defaultTimezone: this.timezone,
      ...(this.defaults.dst ? { defaultDst: this.defaults.dst } : {}),
    });
  }
}

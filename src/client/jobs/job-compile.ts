import { compilePriority } from '../../pipeline/priority';
import { describeValue, InvalidArgumentError } from '../../errors';
import { randomUUID } from 'node:crypto';
import { knownStepNames, toPipelineSpec, type PipelineLike } from '../../pipeline/builder';
import type { PipelineSpec } from '../../pipeline/spec';
import { compileTrigger, validateTimezone, type CompiledTrigger } from '../../schedule/compile-trigger';
import { validateDstPolicy, type DstPolicy } from '../../schedule/dst-policy';
import { DEFAULT_WATCHDOG_TASK_QUEUE } from '../../workflows/alerts/watchdog-defs';
import { dueOneOffWithGrace, type DueOneOff } from '../../schedule/one-off-due';
import { compilePolicies, type JobPolicies } from '../../schedule/policies';
import type { Trigger } from '../../schedule/trigger-types';
import { compileAlerts, pickAlerts, type CompiledAlerts, type JobAlerts } from './store/job-alerts';
import {
  asGiven,
  checkArgs,
  checkJobFields,
  checkOnErrorName,
  workflowIdPrefix,
  splitOptions,
  type JobOptions,
} from './store/job-options';
import type { CompiledJob, JobRecord } from './store/job-record';
import { createOptions } from './store/build-updates';
import { checkKnownSteps, concurrencyKeyOf } from '../runs/run-start';

/*
 * The one validation stop of a new job: job options (as schedule(), scheduleInterval() and scheduleAt()
 * take them, replaceExisting included, and as a jobs file lists them) checked and compiled, with the
 * scheduler's defaults, into the options of its schedule. Pure but for the clock (a one-off due now) and a
 * uuid for a job without an id: no calls to Temporal, so `plan()` validates a whole jobs file offline with
 * the code `schedule()` runs. rescheduleJob's stop is compileNewTrigger; modifyJob's is parseJobChanges
 * (store/job-options.ts).
 */

/** What a scheduler gives every job it writes that sets none of its own (see PipelineSchedulerOptions). */
export interface JobDefaults {
  readonly taskQueue: string;
  readonly timezone: string;
  readonly dst: DstPolicy | undefined;
  /** Policies every job gets unless it sets its own (the scheduler's misfireGraceTime). */
  readonly policies: JobPolicies;
  /** The scheduler's misfireGraceTime compiled. */
  readonly misfireGraceMs: number | undefined;
  readonly knownSteps: readonly string[] | undefined;
  readonly alerts: JobAlerts;
  readonly onError: string | undefined;
  readonly watchdogTaskQueue: string;
  /** The scheduler's `runMetadata`, when it sets one. */
  readonly runMetadata?: boolean;
}

/** The scheduler options {@link compileJobDefaults} reads (see PipelineSchedulerOptions for each). */
export interface JobDefaultsOptions extends JobAlerts {
  readonly taskQueue: string;
  readonly timezone?: string;
  readonly dst?: DstPolicy;
  readonly steps?: Record<string, unknown> | readonly string[];
  readonly onError?: string;
  readonly misfireGraceTime?: JobPolicies['misfireGraceTime'];
  readonly watchdogTaskQueue?: string;
  readonly runMetadata?: boolean;
}

/**
 * A scheduler's options checked and compiled once, at construction: a bad default is the caller's
 * mistake, reported before any job is touched.
 *
 * @throws InvalidArgumentError (InvalidTriggerError, InvalidPolicyError, ...), UnknownStepError naming the option.
 */
export function compileJobDefaults(options: JobDefaultsOptions): JobDefaults {
  const timezone = validateTimezone(options.timezone ?? 'UTC');
  const dst = options.dst === undefined ? undefined : validateDstPolicy(options.dst, 'dst');
  const knownSteps = knownStepNames(options.steps);
  const policies: JobPolicies =
    options.misfireGraceTime === undefined
      ? {}
      : // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- Duration comes from `ms`'s template-literal type, which the linter cannot resolve
        { misfireGraceTime: options.misfireGraceTime };
  const { misfireGraceMs } = compilePolicies(policies);
  if (options.onError !== undefined) checkOnErrorName(options.onError, knownSteps);
  const alerts = pickAlerts(options) ?? {};
  compileAlerts(alerts, knownSteps);
  return {
    taskQueue: options.taskQueue,
    timezone,
    dst,
    policies,
    misfireGraceMs,
    knownSteps,
    alerts,
    onError: options.onError,
    watchdogTaskQueue: options.watchdogTaskQueue ?? DEFAULT_WATCHDOG_TASK_QUEUE,
    ...(options.runMetadata !== undefined ? { runMetadata: checkRunMetadata(options.runMetadata) } : {}),
  };
}

function checkRunMetadata(value: unknown): boolean {
  if (typeof value !== 'boolean') {
    throw new InvalidArgumentError(
      'runMetadata',
      `runMetadata must be true or false, got ${describeValue(value)}`,
    );
  }
  return value;
}

/** A new job validated and compiled: what its schedule is created (or replaced) with. */
export interface PreparedJob {
  readonly jobId: string;
  readonly pipeline: PipelineSpec;
  readonly record: JobRecord;
  readonly job: CompiledJob;
  readonly alerts: CompiledAlerts;
  /** The options of its schedule. */
  readonly options: ReturnType<typeof createOptions>;
  /** Set for a one-off due now: it runs at once, by backfill. */
  readonly due: DueOneOff | undefined;
  /** The option `replaceExisting`. */
  readonly replaceExisting: boolean;
}

/**
 * rescheduleJob's one validation stop: the new trigger, with the scheduler's DST policy and time zone when
 * it sets none, as given (JSON-safe, for the record) and compiled.
 *
 * @throws InvalidTriggerError naming the option at fault.
 */
export function compileNewTrigger(
  trigger: Trigger,
  defaults: Pick<JobDefaults, 'dst' | 'timezone'>,
): { given: Trigger; compiled: CompiledTrigger } {
  const given = asGiven(withDefaultDst(trigger, defaults.dst));
  return { given, compiled: compileTrigger(given, defaults.timezone) };
}

/** A cron or calendar trigger with the scheduler's DST policy when it sets none (stored with the job). */
export function withDefaultDst<T extends Trigger>(trigger: T, dst: DstPolicy | undefined): T {
  if (!dst || 'dst' in trigger || !('cron' in trigger || 'calendar' in trigger)) return trigger;
  return { ...trigger, dst };
}

/**
 * Validates and compiles a new job, in the order `schedule()` always has: options, job fields, the
 * pipeline and its steps, trigger, policies, a due one-off, args, onError, alerts.
 *
 * @throws the InvalidArgumentError family (InvalidTriggerError, InvalidPolicyError, ...), UnknownStepError,
 * RunAtInPastError: each names the option at fault.
 */
export function prepareJob(
  p: PipelineLike,
  opts: JobOptions & Trigger,
  defaults: JobDefaults,
  now = new Date(),
): PreparedJob {
  const { trigger: own0, job, policies: own } = splitOptions(opts);
  const trigger = withDefaultDst(own0, defaults.dst);
  checkJobFields(job);
  const given: JobPolicies = { ...defaults.policies, ...own };
  const pipeline = toPipelineSpec(p);
  checkKnownSteps(pipeline, defaults.knownSteps);
  const compiled = compileTrigger(trigger, defaults.timezone);
  const policies = compilePolicies(given);
  // The job's own grace is the one in `given` when it sets one (it wins over the default).
  const graceMs = {
    job: own.misfireGraceTime !== undefined ? policies.misfireGraceMs : undefined,
    scheduler: defaults.misfireGraceMs,
  };
  const due = dueOneOffWithGrace(compiled, graceMs, now);
  const args = checkArgs(job.args);
  const onError = job.onError ?? defaults.onError;
  if (job.onError !== undefined) checkOnErrorName(job.onError, defaults.knownSteps);
  const alerts = pickAlerts({ ...defaults.alerts, ...pickAlerts(job) });
  const compiledAlerts = alerts ? compileAlerts(alerts, defaults.knownSteps) : {};
  const jobId = job.jobId ?? `${pipeline.name}-${randomUUID()}`;
  const record: JobRecord = {
    v: 1,
    trigger: asGiven(trigger),
    timezone: compiled.timezone,
    policies: asGiven(given),
    ...(onError ? { onError } : {}),
    ...(alerts ? { alerts: asGiven(alerts) } : {}),
    // Kept whether or not the job has alerts now: a modifyJob that adds them later keeps the record's queue.
    ...(defaults.watchdogTaskQueue !== DEFAULT_WATCHDOG_TASK_QUEUE
      ? { alertQueue: defaults.watchdogTaskQueue }
      : {}),
    ...(defaults.runMetadata !== undefined ? { runMetadata: defaults.runMetadata } : {}),
  };
  const compiledJob: CompiledJob = { record, trigger: compiled, policies };
  const options = createOptions({
    jobId,
    workflowId: workflowIdPrefix(jobId, pipeline.name, job.workflowId),
    taskQueue: defaults.taskQueue,
    pipeline,
    args,
    concurrency: concurrencyKeyOf(p, args),
    job: compiledJob,
    alerts: compiledAlerts,
    paused: job.paused ?? false,
    note: job.note,
    due,
    priority: compilePriority(
      job.priority,
      'priority',
      (field, message) => new InvalidArgumentError(field, message),
    ),
  });
  return {
    jobId,
    pipeline,
    record,
    job: compiledJob,
    alerts: compiledAlerts,
    options,
    due,
    replaceExisting: job.replaceExisting === true,
  };
}

import type { PriorityOptions } from '../../../pipeline/priority';
import type { ScheduleOptions } from '@temporalio/client';
import { dstScheduleSpec } from '../../../schedule/dst-compile';
import { horizonEnd } from '../../../schedule/horizon-end';
import type { CompiledTrigger } from '../../../schedule/compile-trigger';
import { describeValue, InvalidArgumentError } from '../../../errors';
import { compilePolicies, type CompiledPolicies, type JobPolicies } from '../../../schedule/policies';
import type {
  CronTrigger,
  CalendarTrigger,
  IntervalTrigger,
  OneOffTrigger,
  Trigger,
} from '../../../schedule/trigger-types';
import type { RunAlerts } from '../../../workflows/alert-types';
import type { RunJobContext } from '../../../workflows/run-types';
import { checkWorkflowIdTemplate, renderWorkflowId } from '../../../pipeline/workflow-id';
import { UnknownStepError } from '../../../pipeline/errors';
import { parseDuration, type DurationInput } from '../../../parse/duration';
import { ALERT_KEYS, compileAlertTarget, type JobAlerts } from './job-alerts';

/*
 * Job options as users write them, and the pure pieces that turn them into a Temporal ScheduleOptions.
 * Shared by creation, rescheduleJob and modifyJob, so that each verb recomputes exactly its own part.
 * modifyJob's options are checked here, whole, by parseJobChanges: its one validation stop.
 */

/** What every job takes besides its trigger. */
export interface JobOptions extends JobPolicies, JobAlerts {
  /** Id of the job, which is the Temporal Schedule id. @default `<pipeline name>-<uuid>` */
  jobId?: string;
  /**
   * Workflow id of the job's runs, before the nominal time Temporal appends to each (`-2026-12-01T02:00:00Z`,
   * UTC): a template with `{job}` (required, so that two jobs never name a run alike) and `{pipeline}`,
   * e.g. `nightly/{job}`. `{date}`, `{time}` and `{uuid}` are refused: rendered once, when the job is
   * written, they would be the same in every run. @default `{job}`
   */
  workflowId?: string;
  /** Arguments of the pipeline's first step. @default [] */
  args?: unknown[];
  /** Free text shown with the job (the schedule's note). */
  note?: string;
  /** Create the job paused. @default false */
  paused?: boolean;
  /** When a job with this id exists, update it in place instead of failing (APScheduler's `replace_existing`). @default false */
  replaceExisting?: boolean;
  /**
   * Name of an activity registered on the worker, run durably by the workflow with a `JobErrorEvent` when
   * a scheduled run fails for good. @default the scheduler's `onError`
   */
  onError?: string;
  /**
   * Temporal priority and fairness of the job's runs (server 1.31+), over the pipeline's own, e.g.
   * `{ priority: 1 }` for a job whose runs must not wait behind bulk work, or `{ fairnessKey: tenant }`.
   * Their steps and children inherit it unless they set their own. @default the pipeline's, else Temporal's
   */
  priority?: PriorityOptions;
}

export type CronJobOptions = JobOptions & (CronTrigger | CalendarTrigger);
export type IntervalJobOptions = JobOptions & IntervalTrigger;
export type OneOffJobOptions = JobOptions & OneOffTrigger;

/** What modifyJob() can change: what runs and how, never when. */
export interface ModifyJobOptions extends JobPolicies {
  args?: unknown[];
  note?: string;
  /** An activity name, or null to remove the job's onError. */
  onError?: string | null;
  /** Alerts (see {@link JobAlerts}); null removes one (with its pair: onLate and lateAfter go together). */
  onMissed?: JobAlerts['onMissed'] | null;
  onLate?: JobAlerts['onLate'] | null;
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- Duration comes from `ms`'s template-literal type, which the linter cannot resolve
  lateAfter?: JobAlerts['lateAfter'] | null;
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- as above
  expectSuccessWithin?: JobAlerts['expectSuccessWithin'] | null;
  onSilent?: JobAlerts['onSilent'] | null;
}

/** Alert changes of modifyJob: a value sets, null removes, absent keeps. */
export type AlertChanges = { [K in keyof JobAlerts]?: JobAlerts[K] | null };

/**
 * ModifyJobOptions once checked and split (by {@link parseJobChanges}): the policies apart from what runs,
 * every field valid. Only what needs the job's current record is left to the update (see modifyUpdate):
 * that the job's alerts, once changed, still pair onLate with lateAfter and onSilent with
 * expectSuccessWithin.
 */
export interface JobChanges {
  args?: unknown[];
  note?: string;
  onError?: string | null;
  alerts: AlertChanges;
  policies: JobPolicies;
}

export const TRIGGER_KEYS = [
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
  'exclude',
  'businessDays',
  'dst',
] as const;
const JOB_KEYS = [
  'jobId',
  'workflowId',
  'args',
  'note',
  'paused',
  'replaceExisting',
  'onError',
  'priority',
  ...ALERT_KEYS,
] as const;
/** The policies a schedule holds itself (its spec and policies), in the order a plan shows them. */
export const SCHEDULE_POLICY_KEYS = [
  'overlap',
  'catchupWindow',
  'pauseOnFailure',
  'jitter',
  'startAt',
  'endAt',
] as const;
export const POLICY_KEYS = ['maxInstances', 'coalesce', 'misfireGraceTime', ...SCHEDULE_POLICY_KEYS] as const;

const has = (keys: readonly string[], key: string) => keys.includes(key);

/** Refuses job options that are not a plain object (null, a string, an array). */
export function checkOptionsObject(opts: unknown): asserts opts is object {
  if (typeof opts !== 'object' || opts === null || Array.isArray(opts)) {
    throw new InvalidArgumentError(
      'options',
      `job options must be an object such as { cron: '0 2 * * *', jobId: 'nightly' }, got ${describeValue(opts)}`,
    );
  }
}

/** Splits job options into trigger, job and policy parts; an unknown key is an error naming the allowed ones. */
export function splitOptions(
  opts: JobOptions & Trigger,
  allowed: { trigger: boolean; job: readonly string[] } = { trigger: true, job: JOB_KEYS },
): { trigger: Trigger; job: JobOptions; policies: JobPolicies } {
  checkOptionsObject(opts);
  const trigger: Record<string, unknown> = {};
  const job: Record<string, unknown> = {};
  const policies: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(opts)) {
    if (value === undefined) continue;
    if (allowed.trigger && has(TRIGGER_KEYS, key)) trigger[key] = value;
    else if (has(allowed.job, key)) job[key] = value;
    else if (has(POLICY_KEYS, key)) policies[key] = value;
    else {
      const names = [...(allowed.trigger ? TRIGGER_KEYS : []), ...allowed.job, ...POLICY_KEYS];
      throw new InvalidArgumentError(
        key || '""',
        `unknown job option "${key}"; allowed: ${names.join(', ')}`,
      );
    }
  }
  return { trigger, job, policies };
}

/**
 * modifyJob's one validation stop: checks its options whole and splits them, before any call. An unknown
 * key (a trigger's among them), a bad note, bad policies, bad args, an onError or alert target that is no
 * activity (or not one of `knownSteps`, when the worker's steps are known) or a bad alert duration is an
 * error naming the option.
 *
 * @throws InvalidArgumentError (InvalidPolicyError, ...), UnknownStepError.
 */
export function parseJobChanges(
  changes: ModifyJobOptions,
  knownSteps: readonly string[] | undefined,
): JobChanges {
  checkOptionsObject(changes);
  const { onError, args, note, ...rest } = changes;
  const alerts: Record<string, unknown> = {};
  const policyChanges: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) {
    if ((ALERT_KEYS as readonly string[]).includes(key)) alerts[key] = value;
    else policyChanges[key] = value;
  }
  splitOptions(policyChanges, { trigger: false, job: [] });
  checkJobFields({ note });
  compilePolicies(policyChanges);
  const checkedArgs = args !== undefined ? checkArgs(args) : undefined;
  if (onError !== undefined && onError !== null) checkOnErrorName(onError, knownSteps);
  checkAlertChanges(alerts, knownSteps);
  return {
    ...(checkedArgs !== undefined ? { args: checkedArgs } : {}),
    ...(note !== undefined ? { note } : {}),
    ...(onError !== undefined ? { onError } : {}),
    alerts,
    // As given, undefined values included: an explicit `undefined` drops the job's own value.
    policies: policyChanges,
  };
}

/** Checks each alert a modifyJob sets (null removes one, undefined keeps it): targets, then durations. */
function checkAlertChanges(alerts: AlertChanges, knownSteps: readonly string[] | undefined): void {
  for (const key of ['onMissed', 'onLate', 'onSilent'] as const) {
    const target = alerts[key];
    if (target !== undefined && target !== null) compileAlertTarget(target, key, knownSteps);
  }
  for (const key of ['lateAfter', 'expectSuccessWithin'] as const) {
    const duration: unknown = alerts[key];
    if (duration !== undefined && duration !== null) parseDuration(duration as DurationInput, key);
  }
}

/**
 * Checks an `onError` name: an activity name, among the worker's steps when they are known.
 *
 * @throws InvalidArgumentError, UnknownStepError naming `onError`.
 */
export function checkOnErrorName(name: unknown, knownSteps: readonly string[] | undefined): void {
  if (typeof name !== 'string' || name === '') {
    throw new InvalidArgumentError(
      'onError',
      'onError must be the name of an activity registered on the worker',
    );
  }
  if (knownSteps && !knownSteps.includes(name)) throw new UnknownStepError(name, knownSteps, 'onError');
}

/** Longest job id accepted: each run's workflow id is the job id plus a timestamp, within Temporal's 1,000. */
export const MAX_JOB_ID_LENGTH = 200;

/**
 * Checks the job's own options (besides args, trigger and policies): jobId, note, paused, replaceExisting.
 *
 * @throws InvalidArgumentError naming the bad option.
 */
export function checkJobFields(job: JobOptions): void {
  if (job.jobId !== undefined) {
    if (typeof job.jobId !== 'string' || job.jobId.trim() === '' || job.jobId.length > MAX_JOB_ID_LENGTH) {
      throw new InvalidArgumentError(
        'jobId',
        `jobId must be a non-blank string of at most ${MAX_JOB_ID_LENGTH} characters, got ${describeValue(job.jobId)}`,
      );
    }
  }
  if (job.workflowId !== undefined) checkJobWorkflowIdTemplate(job.workflowId);
  if (job.note !== undefined && typeof job.note !== 'string') {
    throw new InvalidArgumentError('note', `note must be a string, got ${describeValue(job.note)}`);
  }
  for (const key of ['paused', 'replaceExisting'] as const) {
    if (job[key] !== undefined && typeof job[key] !== 'boolean') {
      throw new InvalidArgumentError(key, `${key} must be true or false, got ${describeValue(job[key])}`);
    }
  }
}

/**
 * Checks a job's `workflowId` template (see {@link JobOptions.workflowId}).
 *
 * @throws InvalidArgumentError naming `workflowId`.
 */
function checkJobWorkflowIdTemplate(template: string): void {
  const used = checkWorkflowIdTemplate(
    template,
    ['job', 'pipeline', 'date', 'time', 'uuid'],
    'workflowId',
    InvalidArgumentError,
  );
  const once = used.find((p) => p === 'date' || p === 'time' || p === 'uuid');
  if (once) {
    throw new InvalidArgumentError(
      'workflowId',
      `workflowId: {${once}} cannot be used in a job's workflowId: it is rendered once, when the job is written, and would be the same in every run; Temporal appends each run's nominal time itself (e.g. "-2026-12-01T02:00:00Z"), so leave it out, e.g. "${withJob(template.replace(`{${once}}`, '').replace(/[-_./]+$/, ''))}"`,
    );
  }
  if (!used.includes('job')) {
    throw new InvalidArgumentError(
      'workflowId',
      `workflowId: ${describeValue(template)} has no {job}: two jobs with it would give their runs at the same time the same workflow id, and Temporal would refuse one; add {job}, e.g. "${withJob(template)}"`,
    );
  }
}

/** A template with `{job}` in it: as it is when it has one, else with `-{job}` appended. */
const withJob = (template: string) =>
  template.includes('{job}') ? template : template ? `${template}-{job}` : '{job}';

/** The prefix of a job's run ids: its `workflowId` template rendered, or the job id. */
export function workflowIdPrefix(jobId: string, pipeline: string, template: string | undefined): string {
  if (template === undefined) return jobId;
  return renderWorkflowId(template, { job: jobId, pipeline, now: new Date(), uuid: () => '' });
}

/** Checks `args`: the arguments of the first step, as an array. */
export function checkArgs(args: unknown): unknown[] {
  if (args === undefined) return [];
  if (!Array.isArray(args)) {
    throw new InvalidArgumentError('args', 'args must be an array: the arguments of the first step');
  }
  // Run inputs travel as JSON: a BigInt, a cycle or a throwing toJSON would fail later, in the SDK.
  try {
    JSON.stringify(args);
  } catch (err) {
    throw new InvalidArgumentError(
      'args',
      `args must be JSON values (strings, numbers, booleans, null, arrays, plain objects): ${(err as Error).message}`,
    );
  }
  return args;
}

/** The trigger and policies as given, made JSON-safe (dates as ISO strings) for the job record. */
export function asGiven<T extends object>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The schedule spec: the compiled trigger plus the spec-level policies (startAt, endAt, jitter). */
export function scheduleSpec(
  compiled: CompiledTrigger,
  policies: CompiledPolicies,
  now = new Date(),
): JobSpec {
  // The DST policy's entries and skips are compiled from now (its horizon moves on every write).
  const { spec, dst } = dstScheduleSpec(compiled, now);
  const end = horizonEnd(compiled.exclusions, dst);
  return {
    spec: {
      ...spec,
      ...(policies.startAt ? { startAt: policies.startAt } : {}),
      ...(policies.endAt ? { endAt: policies.endAt } : {}),
      ...(policies.jitterMs !== undefined ? { jitter: policies.jitterMs } : {}),
    },
    ...(dst ? { dstSkips: dst.skips } : {}),
    ...(end ? { horizonEnd: end } : {}),
  };
}

/**
 * A job's schedule spec, the nominal times its runs skip for its DST policy (see dst-compile.ts), and the
 * end of the horizon it was compiled for (see horizon-end.ts).
 */
export interface JobSpec {
  spec: ScheduleOptions['spec'];
  dstSkips?: string[];
  horizonEnd?: string;
}

/** The schedule policies in Temporal's terms. */
export function schedulePolicies(policies: CompiledPolicies): NonNullable<ScheduleOptions['policies']> {
  return {
    overlap: policies.overlap,
    pauseOnFailure: policies.pauseOnFailure,
    ...(policies.catchupWindowMs !== undefined ? { catchupWindow: policies.catchupWindowMs } : {}),
  };
}

/** What each scheduled run knows of its job (the workflow enforces misfire, maxInstances, onError, once). */
export function runJobContext(
  jobId: string,
  policies: CompiledPolicies,
  once: boolean,
  onError: string | undefined,
  extra: Pick<JobSpec, 'dstSkips' | 'horizonEnd'> & { alerts?: RunAlerts | undefined } = {},
): RunJobContext {
  const { alerts, dstSkips, horizonEnd: end } = extra;
  return {
    jobId,
    ...(dstSkips ? { dstSkips } : {}),
    ...(end ? { horizonEnd: end } : {}),
    ...(policies.misfireGraceMs !== undefined ? { misfireGraceMs: policies.misfireGraceMs } : {}),
    ...(policies.maxInstances > 1 ? { maxInstances: policies.maxInstances } : {}),
    ...(onError ? { onError } : {}),
    ...(once ? { once: true } : {}),
    // SKIP is what coalesce: true (with one instance) compiles to, or what the user chose directly.
    ...(policies.overlap === 'SKIP' ? { coalesce: true } : {}),
    ...(alerts ? { alerts } : {}),
  };
}

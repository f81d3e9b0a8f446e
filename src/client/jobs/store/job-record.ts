import type { TypedSearchAttributes } from '@temporalio/common';
import type { CompiledTrigger } from '../../../schedule/compile-trigger';
import type { CompiledPolicies, JobPolicies } from '../../../schedule/policies';
import type { Trigger } from '../../../schedule/trigger-types';
import type { JobAlerts } from './job-alerts';
import { JOB_SEARCH_ATTRIBUTE } from '../../../workflows/search-attributes';

/*
 * The job as the user gave it, so that getJob() returns it exactly and rescheduleJob()/modifyJob() can
 * change it (a schedule's own memo cannot be updated). Kept twice, both updated by every write:
 * - whole in the action's memo (`tflowJob`), read by describe, which is strongly consistent. A memo is a
 *   payload: the payload codec encrypts it;
 * - its listed fields only (ListedJobRecord: trigger, time zone, policies, onError) in the schedule's
 *   `TflowJob` search attribute (JSON), read by listings, which carry no action details. Search attributes
 *   are never encoded by the codec and anyone who can list schedules reads them, so nothing that can hold
 *   a secret goes there: alert targets (webhook URLs and headers) stay in the memo. Schedule search
 *   attributes are served from visibility, so they lag a write by a moment.
 * Persisted: add fields only.
 */

/** Key of the record in the action's memo (each run started by the job carries it too). */
export const JOB_RECORD_MEMO_KEY = 'tflowJob';

export interface JobRecord {
  v: 1;
  /** The trigger as given (dates as ISO strings). */
  trigger: Trigger;
  /** The trigger's time zone, resolved with the scheduler's default. */
  timezone: string;
  /** The policies as given (dates as ISO strings). */
  policies: JobPolicies;
  /** Activity run on the worker when a scheduled run fails for good. */
  onError?: string;
  /** The alerts as given (the scheduler's defaults merged in). */
  alerts?: JobAlerts;
  /**
   * When the dead-man switch was set (ISO 8601), kept here and in the `TflowAlerts` attribute
   * (job-alerts-attribute.ts): the watchdog's clock starts no earlier. Absent on jobs written before it.
   */
  deadManSince?: string;
  /**
   * Alert targets an edit made outside temporal-flow lost (`onSilent`, ...): written without a codec, the
   * `TflowAlerts` attribute that outlives such an edit holds webhook targets only redacted. Kept by every
   * write until the target is set again (modifyJob, or apply of the job's file).
   */
  alertsLost?: string[];
  /**
   * The alert task queue whose evaluator serves this job's dead-man switch and counted misses (the
   * writing scheduler's `watchdogTaskQueue`), when it is not the default `tflow-watchdog`.
   */
  alertQueue?: string;
  /**
   * Whether the job's runs carry their summary and details for the Temporal UI (the writing scheduler's
   * `runMetadata`, when it set one): absent, they do. Kept by every later write, unless a scheduler that
   * sets the option replaces the job.
   */
  runMetadata?: boolean;
}

/** A record with what it compiles to: what a write of the whole job sends. */
export interface CompiledJob {
  readonly record: JobRecord;
  /** `record.trigger` compiled in `record.timezone`. */
  readonly trigger: CompiledTrigger;
  /** `record.policies` compiled. */
  readonly policies: CompiledPolicies;
}

/**
 * What the search attribute holds of a record: the fields listings show, none of which carries a secret.
 * Chosen field by field, so that a field added to JobRecord later stays out until it is judged safe.
 */
export type ListedJobRecord = Pick<
  JobRecord,
  'v' | 'trigger' | 'timezone' | 'policies' | 'onError' | 'alertQueue' | 'runMetadata'
>;

/** The listed fields of a record (see {@link ListedJobRecord}); whatever else it holds is left out. */
export function listedRecord(record: JobRecord): ListedJobRecord {
  return {
    v: 1,
    trigger: record.trigger,
    timezone: record.timezone,
    policies: record.policies,
    ...(record.onError ? { onError: record.onError } : {}),
    // A queue name, no secret: the alert evaluators tell their jobs from the listing, even encrypted ones.
    ...(record.alertQueue ? { alertQueue: record.alertQueue } : {}),
    // No secret either, and what an outside edit that drops the action's memo must not turn back on.
    ...(record.runMetadata !== undefined ? { runMetadata: record.runMetadata } : {}),
  };
}

/**
 * Longest record stored in the search attribute, in UTF-8 bytes. SQL visibility keeps a Keyword in a
 * `varchar(255)`: on PostgreSQL a longer value fails the schedule's visibility task for good, and the job
 * never shows in listings (seen on the test:cluster cluster, Temporal 1.32 on PostgreSQL 15).
 */
export const MAX_RECORD_BYTES = 255;

/**
 * Encodes the listed fields of a record for the search attribute; undefined when they are too long to
 * store there (the record stays in the action memo: getJob() reads it, listings show the trigger derived
 * from the spec).
 */
export function encodeListedRecord(record: JobRecord): string | undefined {
  const text = JSON.stringify(listedRecord(record));
  return Buffer.byteLength(text, 'utf8') <= MAX_RECORD_BYTES ? text : undefined;
}

function isJobRecord(value: unknown): value is JobRecord {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as JobRecord).v === 1 &&
    typeof (value as JobRecord).trigger === 'object'
  );
}

/**
 * The record from the action's memo (describe), whole; or else from the search attribute (listings), its
 * listed fields only. A job written by an earlier version, before alerts were kept out of the attribute, still
 * has them there: they are read past, and the job's next write replaces the attribute.
 */
export function decodeJobRecord(
  attrs: TypedSearchAttributes | undefined,
  actionMemo?: Record<string, unknown>,
): JobRecord | undefined {
  const fromMemo = actionMemo?.[JOB_RECORD_MEMO_KEY];
  if (isJobRecord(fromMemo)) return fromMemo;
  const text = attrs?.get(JOB_SEARCH_ATTRIBUTE);
  if (typeof text !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isJobRecord(value) ? listedRecord(value) : undefined;
  } catch {
    return undefined;
  }
}

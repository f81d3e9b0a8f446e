import { createHash } from 'node:crypto';
import type { ScheduleDescription } from '@temporalio/client';
import type { LoadedDataConverter, SearchAttributePair } from '@temporalio/common';
import { TypedSearchAttributes } from '@temporalio/common';
import { decodeFromPayloadsAtIndex, encodeToPayload } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import { InvalidArgumentError } from '../../../errors';
import { ALERTS_AT_SEARCH_ATTRIBUTE, ALERTS_SEARCH_ATTRIBUTE } from '../../../workflows/search-attributes';
import { JobAlertsUnreadableError } from '../../errors';
import type { RunAlerts } from '../../../workflows/alert-types';
import type { JobAlerts } from './job-alerts';
import { JOB_RECORD_MEMO_KEY, decodeJobRecord, type JobRecord } from './job-record';

/*
 * A job's alerts in the schedule's `TflowAlerts` search attribute: the one place of a schedule that an edit
 * made outside temporal-flow keeps (`temporal schedule update` and the Temporal UI replace the action, its
 * memo with it, and leave the schedule's search attributes alone). Every write of a job writes it, with the
 * alerts the job record holds; every read of a job (describe) takes the alerts from it, restoring them into
 * the record when an outside edit dropped the action's memo. A job written before the attribute existed
 * has none: its record in the action memo is read as before, and its next write adds the attribute.
 *
 * The value is the alerts as one payload, run through the client's payload codecs (encrypted when the
 * client has a codec; without one, webhook targets, which are secrets, are kept redacted: RedactedTarget)
 * and written as base64 of the Payload proto.
 * Persisted: add fields only.
 */

/**
 * A webhook target written without a codec: search attributes are served from visibility to whoever can
 * list schedules, so a webhook's URL and headers (secrets) go there only encrypted. Without a codec the
 * attribute keeps the webhook's host and a hash; the whole target stays in the action's memo, and an
 * outside edit that drops the memo loses it, which getJob (`alertsLost`) and `tflow doctor` then say.
 */
export interface RedactedTarget {
  redacted: { host: string; sha256: string };
}

/** The alert targets of a job. */
const TARGET_KEYS = ['onMissed', 'onLate', 'onSilent'] as const;
/** The duration each target pairs with, dropped with a target that was lost. */
const PAIRED: Partial<Record<(typeof TARGET_KEYS)[number], keyof JobAlerts>> = {
  onLate: 'lateAfter',
  onSilent: 'expectSuccessWithin',
};

/** The alerts as the attribute holds them: webhooks redacted when written without a codec. */
export type StoredAlerts = Omit<JobAlerts, (typeof TARGET_KEYS)[number]> & {
  [K in (typeof TARGET_KEYS)[number]]?: JobAlerts[K] | RedactedTarget;
};

/** What the attribute holds. */
export interface AlertsAttribute {
  v: 1;
  /** The alerts as given (the scheduler's defaults merged in); absent when the job has none. */
  alerts?: StoredAlerts;
  /**
   * When the dead-man switch (expectSuccessWithin with onSilent) was set on this job (ISO 8601): its clock
   * starts there, so a switch added to a job whose runs never reported (or to an id removed and created
   * again) does not page for the time before it. Kept by writes that keep the switch.
   */
  deadManSince?: string;
  /** Targets an outside edit lost and no write has set again (see JobRecord.alertsLost). */
  lost?: string[];
  /** The job's alert task queue when not the default (JobRecord.alertQueue). */
  queue?: string;
}

/**
 * Longest encoded value, in bytes: Temporal's default limit on one search attribute value
 * (`limit.searchAttributesSizeOfValue`, 2 KiB).
 */
export const MAX_ALERTS_ATTRIBUTE_BYTES = 2048;

function hasSwitch(alerts: JobAlerts | undefined): boolean {
  return alerts?.expectSuccessWithin !== undefined && alerts.onSilent !== undefined;
}

/**
 * The attribute a write leaves for `next` (the record it writes), given the job as it was before
 * (`previous`: undefined for a new job): the dead-man clock is kept while the switch stays set, and
 * starts at `now` when the switch is set where it was not.
 */
export function nextAlertsAttribute(
  next: JobRecord,
  previous: JobRecord | undefined,
  now: Date,
  encrypted: boolean,
): AlertsAttribute {
  const since = !hasSwitch(next.alerts)
    ? undefined
    : hasSwitch(previous?.alerts)
      ? previous?.deadManSince
      : now.toISOString();
  const alerts = next.alerts && (encrypted ? next.alerts : redacted(next.alerts));
  const lost = next.alertsLost;
  return {
    v: 1,
    ...(alerts ? { alerts } : {}),
    ...(since ? { deadManSince: since } : {}),
    ...(lost && lost.length > 0 ? { lost } : {}),
    ...(next.alertQueue ? { queue: next.alertQueue } : {}),
  };
}

/** The targets still lost once `alerts` are written: those not set again. */
function stillLost(lost: string[] | undefined, alerts: JobAlerts | undefined): string[] {
  return (lost ?? []).filter((key) => alerts?.[key as keyof JobAlerts] === undefined);
}

/** The alerts with each webhook target replaced by its host and a hash (see RedactedTarget). */
function redacted(alerts: JobAlerts): StoredAlerts {
  const out: StoredAlerts = { ...alerts };
  for (const key of TARGET_KEYS) {
    const target = alerts[key];
    if (target === undefined || typeof target === 'string') continue;
    let host: string;
    try {
      host = new URL(target.webhook.url).host;
    } catch {
      host = 'invalid-url';
    }
    const sha256 = targetHash(target);
    out[key] = { redacted: { host, sha256 } };
  }
  return out;
}

/** The hash a redacted target names (RedactedTarget.sha256): of the target as given. */
const targetHash = (target: unknown) =>
  createHash('sha256').update(JSON.stringify(target)).digest('hex').slice(0, 16);

/**
 * The target as it was given, from its compiled form in a run's input (the run alerts: onMissed, onLate),
 * when one of the usual ways to write it hashes to what the attribute kept redacted: `url`, then `headers`
 * and `timeout` as given (absent at the default 10 s, else in seconds or milliseconds), in either order.
 * Undefined when none does: then nothing is guessed.
 */
function givenFromInput(compiled: RunAlerts['onMissed'], sha256: string): JobAlerts['onMissed'] | undefined {
  if (!compiled || !('webhook' in compiled)) return undefined;
  const { url, headers, timeoutMs } = compiled.webhook;
  const timeouts: (string | undefined)[] = [undefined, `${timeoutMs}ms`];
  if (timeoutMs % 1000 === 0) timeouts.push(`${timeoutMs / 1000}s`);
  for (const timeout of timeouts) {
    const h = headers ? { headers } : {};
    const t = timeout ? { timeout } : {};
    for (const webhook of [
      { url, ...h, ...t },
      { url, ...t, ...h },
    ]) {
      if (targetHash({ webhook }) === sha256) return { webhook };
    }
  }
  return undefined;
}

/** The run alerts compiled into the schedule's action input (PipelineRunInput.job.alerts), if any. */
function runAlertsOf(d: ScheduleDescription): RunAlerts | undefined {
  if (d.action.type !== 'startWorkflow') return undefined;
  const input = d.action.args?.[0] as { job?: { alerts?: RunAlerts } } | undefined;
  return typeof input === 'object' && input !== null ? input.job?.alerts : undefined;
}

/**
 * The alerts an attribute restores when the action's memo is gone: the targets it holds whole; a run
 * alert's webhook it held redacted, from the action's input when an outside edit kept it (`temporal
 * schedule update --input` with the input read back) and it hashes to the redacted one; and the names of the
 * others (lost, with the duration they pair with).
 */
function restorable(stored: StoredAlerts, fromInput?: RunAlerts): { alerts?: JobAlerts; lost: string[] } {
  const alerts: Record<string, unknown> = { ...stored };
  const lost: string[] = [];
  for (const key of TARGET_KEYS) {
    const target = stored[key];
    if (typeof target !== 'object' || target === null || !('redacted' in target)) continue;
    const recovered =
      key === 'onSilent' ? undefined : givenFromInput(fromInput?.[key], target.redacted.sha256);
    if (recovered) {
      alerts[key] = recovered;
      continue;
    }
    lost.push(key);
    delete alerts[key];
    const paired = PAIRED[key];
    if (paired) delete alerts[paired];
  }
  return { ...(Object.keys(alerts).length > 0 ? { alerts: alerts } : {}), lost };
}

/**
 * Encodes the attribute through the client's payload codecs.
 *
 * @throws InvalidArgumentError (`alerts`) when the encoded alerts pass Temporal's limit on one search
 * attribute value.
 */
export async function encodeAlertsAttribute(
  converter: LoadedDataConverter,
  value: AlertsAttribute,
): Promise<string> {
  const payload = await encodeToPayload(converter, value);
  const text = Buffer.from(temporal.api.common.v1.Payload.encode(payload).finish()).toString('base64');
  if (text.length > MAX_ALERTS_ATTRIBUTE_BYTES) {
    throw new InvalidArgumentError(
      'alerts',
      `the job's alerts take ${text.length} bytes once encoded, over the ${MAX_ALERTS_ATTRIBUTE_BYTES} Temporal allows in one search attribute: shorten the webhook URLs and headers, or name an alert activity registered on the worker instead (it holds its own secrets)`,
    );
  }
  return text;
}

/**
 * Decodes the attribute of a schedule; undefined when it has none (a job written before it existed).
 *
 * @throws JobAlertsUnreadableError when the value cannot be decoded (most often: it was encrypted with a
 * codec key this client lacks).
 */
export async function decodeAlertsAttribute(
  converter: LoadedDataConverter,
  jobId: string,
  text: unknown,
): Promise<AlertsAttribute | undefined> {
  if (typeof text !== 'string' || text === '') return undefined;
  let value: unknown;
  try {
    const payload = temporal.api.common.v1.Payload.decode(Buffer.from(text, 'base64'));
    value = await decodeFromPayloadsAtIndex<unknown>(converter, 0, [payload]);
  } catch (err) {
    throw new JobAlertsUnreadableError(jobId, err);
  }
  if (typeof value !== 'object' || value === null || (value as AlertsAttribute).v !== 1) {
    throw new JobAlertsUnreadableError(jobId, new Error(`not a TflowAlerts value of version 1`));
  }
  return value as AlertsAttribute;
}

/**
 * The description with the job's record made whole: while the action's memo holds the record (every write
 * of ours leaves it there), its alerts are the memo's, and the attribute adds when the dead-man switch was
 * set; when an outside edit dropped the memo, the record is restored from the listed fields of the
 * `TflowJob` attribute and the alerts from this one, with the targets it held only redacted named in
 * `alertsLost`. A schedule without the attribute (not ours, or written before it) is returned as it is.
 */
export async function restoreJobAlerts(
  converter: LoadedDataConverter,
  jobId: string,
  d: ScheduleDescription,
): Promise<ScheduleDescription> {
  const attribute = await decodeAlertsAttribute(
    converter,
    jobId,
    d.typedSearchAttributes.get(ALERTS_SEARCH_ATTRIBUTE),
  );
  if (!attribute) return d;
  const inMemo = decodeJobRecord(undefined, d.action.memo);
  const stored = inMemo ??
    decodeJobRecord(d.typedSearchAttributes) ?? {
      // No record anywhere (an outside edit, and listed fields too long for TflowJob): the trigger is read
      // from the spec (readJobState finds an empty cron edited outside), the alerts are kept.
      v: 1 as const,
      trigger: { cron: [] },
      timezone: d.spec.timezone ?? 'UTC',
      policies: {},
    };
  const { alerts: memoAlerts, deadManSince: memoSince, alertsLost, alertQueue, ...rest } = stored;
  const restored = inMemo || !attribute.alerts ? { lost: [] } : restorable(attribute.alerts, runAlertsOf(d));
  const alerts = inMemo ? memoAlerts : restored.alerts;
  const lost = [...new Set([...(alertsLost ?? []), ...(attribute.lost ?? []), ...restored.lost])];
  const record: JobRecord = {
    ...rest,
    ...(alerts ? { alerts } : {}),
    // The memo's copy first: a describe can serve search attributes a write behind, never the memo.
    ...((memoSince ?? attribute.deadManSince) && hasSwitch(alerts)
      ? { deadManSince: memoSince ?? attribute.deadManSince }
      : {}),
    ...(lost.length > 0 ? { alertsLost: lost } : {}),
    ...((alertQueue ?? attribute.queue) ? { alertQueue: alertQueue ?? attribute.queue } : {}),
  };
  return { ...d, action: { ...d.action, memo: { ...d.action.memo, [JOB_RECORD_MEMO_KEY]: record } } };
}

type Attributes = TypedSearchAttributes | SearchAttributePair[] | undefined;

/**
 * The search attributes with the alerts attribute set to `text`, and `TflowAlertsAt` to `now` (the alert
 * evaluator lists the schedules whose alerts were written since its last look by it).
 */
export function withAlertsText(attrs: Attributes, text: string, now = new Date()): TypedSearchAttributes {
  const pairs = (attrs instanceof TypedSearchAttributes ? attrs.getAll() : (attrs ?? [])).filter(
    (p) => p.key.name !== ALERTS_SEARCH_ATTRIBUTE.name && p.key.name !== ALERTS_AT_SEARCH_ATTRIBUTE.name,
  );
  return new TypedSearchAttributes([
    ...pairs,
    { key: ALERTS_SEARCH_ATTRIBUTE, value: text },
    { key: ALERTS_AT_SEARCH_ATTRIBUTE, value: now },
  ]);
}

/** What the write helpers need of a schedule's options or update: the action's memo and the attributes. */
interface WithRecord {
  action: { memo?: Record<string, unknown> | undefined };
  typedSearchAttributes?: Attributes;
}

/**
 * The options or update with the alerts attribute set from the record it writes in the action's memo
 * (nothing changes when it writes none). `previous` is the job as the write found it (undefined for a new
 * job): its attributes are kept when the update sends none of its own, and its record gives the dead-man
 * clock (see nextAlertsAttribute).
 */
export async function withAlertsOfRecord<U extends WithRecord>(
  converter: LoadedDataConverter,
  update: U,
  previous: ScheduleDescription | undefined,
  now = new Date(),
): Promise<U> {
  const written = decodeJobRecord(undefined, update.action.memo);
  if (!written) return update;
  const { alertsLost, deadManSince: _since, ...rest } = written;
  const lost = stillLost(alertsLost, written.alerts);
  const base: JobRecord = { ...rest, ...(lost.length > 0 ? { alertsLost: lost } : {}) };
  const before = previous ? decodeJobRecord(undefined, previous.action.memo) : undefined;
  const encrypted = converter.payloadCodecs.length > 0;
  const attribute = nextAlertsAttribute(base, before, now, encrypted);
  const text = await encodeAlertsAttribute(converter, attribute);
  // In the memo too, which every describe serves as the last write left it.
  const next: JobRecord = {
    ...base,
    ...(attribute.deadManSince ? { deadManSince: attribute.deadManSince } : {}),
  };
  return {
    ...update,
    action: { ...update.action, memo: { ...update.action.memo, [JOB_RECORD_MEMO_KEY]: next } },
    typedSearchAttributes: withAlertsText(
      update.typedSearchAttributes ?? previous?.typedSearchAttributes,
      text,
      now,
    ),
  };
}

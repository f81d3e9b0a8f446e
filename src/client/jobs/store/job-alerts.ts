import type { Duration } from '@temporalio/common';
import { InvalidArgumentError } from '../../../errors';
import { parseDuration } from '../../../parse/duration';
import type { CompiledAlertTarget, RunAlerts } from '../../../workflows/alert-types';
import type { WatchdogConfig } from '../../../workflows/alerts/watchdog-defs';

/*
 * The durable alerts of a job as users write them (per job, or as the scheduler's defaults), checked and
 * compiled once: what each run raises itself (RunAlerts, in the schedule's action) and what the job's
 * watchdog watches (WatchdogConfig). See docs/operations.md#on-call.
 */

/** The built-in webhook: the alert is POSTed as JSON (with a Slack-compatible `text` field). */
export interface WebhookTarget {
  webhook: {
    /** http(s) URL, e.g. a Slack incoming webhook. */
    url: string;
    /** Extra request headers (e.g. `authorization`). */
    headers?: Record<string, string>;
    /** Time one attempt may take. @default '10s' */
    timeout?: Duration;
  };
}

/**
 * Where an alert goes: the name of an activity registered on the worker (called with a `JobAlertEvent`),
 * or the built-in webhook.
 */
export type AlertTarget = string | WebhookTarget;

/** The alerts of a job. Each target pairs with its duration: onLate with lateAfter, onSilent with expectSuccessWithin. */
export interface JobAlerts {
  /**
   * Raised for a run skipped for misfire or maxInstances (with its nominal time), and for occurrences the
   * server counted as missed (catch-up window) or skipped (overlap), read by the shared alert evaluator.
   */
  onMissed?: AlertTarget;
  /** Raised for a run whose first step started more than `lateAfter` after its nominal time. */
  onLate?: AlertTarget;
  lateAfter?: Duration;
  /**
   * Dead-man switch: when no run of the job has completed for this long, for any reason (no worker, a
   * paused or deleted schedule, runs that keep failing), `onSilent` is raised once, and again (`recovered`)
   * at the next completed run. Needs an alert worker (`createWatchdogWorker`) on the scheduler's
   * `watchdogTaskQueue` running somewhere.
   */
  expectSuccessWithin?: Duration;
  onSilent?: AlertTarget;
}

/** The option names of {@link JobAlerts}. */
export const ALERT_KEYS = ['onMissed', 'onLate', 'lateAfter', 'expectSuccessWithin', 'onSilent'] as const;

/** Per attempt, unless the webhook sets its own timeout. */
const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/** A job's alerts compiled: what its runs carry and what its watchdog watches (absent when it needs none). */
export interface CompiledAlerts {
  run?: RunAlerts;
  watchdog?: WatchdogConfig;
}

/** What a value is, never what it holds (a header value or a URL can be a secret). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function checkHeaders(headers: unknown, field: string): Record<string, string> | undefined {
  if (headers === undefined) return undefined;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw new InvalidArgumentError(
      field,
      `${field} must be an object of header names to strings, got ${kindOf(headers)}`,
    );
  }
  const bad = Object.entries(headers).filter(([, v]) => typeof v !== 'string');
  if (bad.length > 0) {
    throw new InvalidArgumentError(
      field,
      `${field} must be an object of header names to strings: ${bad
        .map(([name, v]) => `"${name}" is ${kindOf(v)}`)
        .join(', ')}`,
    );
  }
  return headers as Record<string, string>;
}

/** A target in an error: an object by its keys only (`{ url }` given without `webhook` holds its URL). */
function shape(value: unknown): string {
  if (value === '') return 'an empty string';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return kindOf(value);
  return `an object with ${Object.keys(value).length > 0 ? `keys ${Object.keys(value).join(', ')}` : 'no keys'}`;
}

/** A webhook URL in an error: its scheme and host only (its path and query can hold a secret). */
function urlProblem(value: unknown, url: URL | undefined): string {
  if (typeof value !== 'string') return kindOf(value);
  if (!url) return 'a string that is not a URL';
  return `a ${url.protocol} URL${url.host ? ` (host ${url.host})` : ''}`;
}

/**
 * Checks and compiles one target. `knownSteps`, when the scheduler knows the worker's steps, refuses an
 * activity name the worker does not have.
 */
export function compileAlertTarget(
  target: AlertTarget,
  field: string,
  knownSteps?: readonly string[],
): CompiledAlertTarget {
  if (typeof target === 'string' && target !== '') {
    if (knownSteps && !knownSteps.includes(target)) {
      throw new InvalidArgumentError(
        field,
        `${field} "${target}" is not one of the worker's steps (${knownSteps.join(', ')}): name a registered activity, or use { webhook: { url } }`,
      );
    }
    return { activity: target };
  }
  const webhook = (target as Partial<WebhookTarget> | null)?.webhook;
  if (typeof target !== 'object' || target === null || typeof webhook !== 'object' || webhook === null) {
    throw new InvalidArgumentError(
      field,
      `${field} must be the name of an activity registered on the worker or { webhook: { url } }, got ${shape(target)}`,
    );
  }
  let url: URL | undefined;
  try {
    url = new URL(webhook.url);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new InvalidArgumentError(
      `${field}.webhook.url`,
      `${field}.webhook.url must be an http(s) URL, got ${urlProblem(webhook.url, url)}`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    // fetch() refuses such a URL, and its error quotes it whole; the message here does not repeat it.
    throw new InvalidArgumentError(
      `${field}.webhook.url`,
      `${field}.webhook.url must not hold a user name or password (https://user:password@${url.host}/...): send credentials as a header, e.g. headers: { authorization: 'Basic ...' }`,
    );
  }
  const headers = checkHeaders(webhook.headers, `${field}.webhook.headers`);
  const timeoutMs =
    webhook.timeout === undefined
      ? DEFAULT_WEBHOOK_TIMEOUT_MS
      : parseDuration(webhook.timeout, `${field}.webhook.timeout`);
  return { webhook: { url: webhook.url, ...(headers ? { headers } : {}), timeoutMs } };
}

/** The two halves that must be given together, as [target, duration]. */
const PAIRS = [
  ['onLate', 'lateAfter'],
  ['onSilent', 'expectSuccessWithin'],
] as const;

/**
 * Checks a job's alerts (after the scheduler's defaults are merged in) and compiles them.
 *
 * @throws InvalidArgumentError naming the option at fault: a bad target, a bad duration, or one half of
 * a pair (onLate/lateAfter, onSilent/expectSuccessWithin) without the other.
 */
export function compileAlerts(alerts: JobAlerts, knownSteps?: readonly string[]): CompiledAlerts {
  for (const [target, duration] of PAIRS) {
    if ((alerts[target] === undefined) !== (alerts[duration] === undefined)) {
      const [given, missing] = alerts[target] === undefined ? [duration, target] : [target, duration];
      throw new InvalidArgumentError(
        missing,
        `${given} needs ${missing}: give both (e.g. onLate: 'page' with lateAfter: '5m'; onSilent: { webhook: { url } } with expectSuccessWithin: '26h')`,
      );
    }
  }
  const onMissed =
    alerts.onMissed === undefined ? undefined : compileAlertTarget(alerts.onMissed, 'onMissed', knownSteps);
  const onLate =
    alerts.onLate === undefined ? undefined : compileAlertTarget(alerts.onLate, 'onLate', knownSteps);
  const onSilent =
    alerts.onSilent === undefined ? undefined : compileAlertTarget(alerts.onSilent, 'onSilent', knownSteps);
  const lateAfterMs =
    alerts.lateAfter === undefined ? undefined : parseDuration(alerts.lateAfter, 'lateAfter');
  const expectMs =
    alerts.expectSuccessWithin === undefined
      ? undefined
      : parseDuration(alerts.expectSuccessWithin, 'expectSuccessWithin');
  const watchdog =
    onSilent || onMissed
      ? {
          ...(onSilent ? { onSilent, expectSuccessWithinMs: expectMs! } : {}),
          ...(onMissed ? { onMissed } : {}),
        }
      : undefined;
  const run: RunAlerts = {
    ...(onMissed ? { onMissed } : {}),
    ...(onLate ? { onLate, lateAfterMs: lateAfterMs! } : {}),
    ...(onSilent ? { watchdog: true } : {}),
  };
  return { ...(Object.keys(run).length > 0 ? { run } : {}), ...(watchdog ? { watchdog } : {}) };
}

/** The alert options among job options, in the order of {@link ALERT_KEYS}; undefined when there are none. */
export function pickAlerts(source: JobAlerts): JobAlerts | undefined {
  const picked: Record<string, unknown> = {};
  for (const key of ALERT_KEYS) if (source[key] !== undefined) picked[key] = source[key];
  return Object.keys(picked).length > 0 ? picked : undefined;
}

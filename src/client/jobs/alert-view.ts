import { createHash } from 'node:crypto';
import { parseDuration } from '../../parse/duration';
import type { CompiledAlertTarget } from '../../workflows/alert-types';
import { compileAlertTarget, type CompiledAlerts, type JobAlerts } from './store/job-alerts';
import { formatMs } from './store/job-spec-match';

/*
 * A job's alerts as a plan shows them (job-view.ts): a plan is printed in CI logs and pull-request
 * comments, and a webhook's URL and headers are secrets (a Slack hook's path, an `authorization` header).
 * So a target is shown by its kind, an activity by its name (`activity:page`) and a webhook by a short
 * hash of what it is made of (`webhook#3f2a9c1b`): URL, headers and timeout, so that changing any of them
 * is a change the plan shows, and showing it gives none of them away. Durations are shown compiled
 * (`600s` and `10m` are one `10m`). Persisted: apply's mark (AppliedMark.view) stores this form, so the
 * hash's input and the texts must not change, or every job applied before would plan as drift.
 */

/** Hex digits of a webhook's hash: enough to tell two targets of one job apart, too few to matter as a leak. */
const HASH_DIGITS = 8;

/** The parts of a job's alerts that a plan compares, each compiled. */
interface AlertFacts {
  onMissed?: CompiledAlertTarget | undefined;
  onLate?: CompiledAlertTarget | undefined;
  lateAfterMs?: number | undefined;
  onSilent?: CompiledAlertTarget | undefined;
  expectSuccessWithinMs?: number | undefined;
}

/** A target as a plan shows it: `activity:<name>` or `webhook#<hash>`. */
export function shownTarget(target: CompiledAlertTarget): string {
  if ('activity' in target) return `activity:${target.activity}`;
  const { url, headers, timeoutMs } = target.webhook;
  // Header names compared as HTTP does (any case), in one order: the same webhook always hashes the same.
  const named = Object.entries(headers ?? {})
    .map(([name, value]) => [name.toLowerCase(), value])
    .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
  const hash = createHash('sha256')
    .update(JSON.stringify([url, named, timeoutMs]))
    .digest('hex');
  return `webhook#${hash.slice(0, HASH_DIGITS)}`;
}

function shown(facts: AlertFacts): Record<string, string> {
  const out: Record<string, string> = {};
  if (facts.onMissed) out.onMissed = shownTarget(facts.onMissed);
  if (facts.onLate) out.onLate = shownTarget(facts.onLate);
  if (facts.lateAfterMs !== undefined) out.lateAfter = formatMs(facts.lateAfterMs);
  if (facts.expectSuccessWithinMs !== undefined) {
    out.expectSuccessWithin = formatMs(facts.expectSuccessWithinMs);
  }
  if (facts.onSilent) out.onSilent = shownTarget(facts.onSilent);
  return out;
}

/**
 * A job's alerts (as given, already checked when written) as a plan shows them: each option set, targets
 * by kind and hash, durations compiled.
 */
export function shownAlerts(alerts: JobAlerts): Record<string, string> {
  const target = (value: JobAlerts['onMissed'], field: string) =>
    value === undefined ? undefined : compileAlertTarget(value, field);
  const duration = (value: JobAlerts['lateAfter'], field: string) =>
    value === undefined ? undefined : parseDuration(value, field);
  return shown({
    onMissed: target(alerts.onMissed, 'onMissed'),
    onLate: target(alerts.onLate, 'onLate'),
    lateAfterMs: duration(alerts.lateAfter, 'lateAfter'),
    onSilent: target(alerts.onSilent, 'onSilent'),
    expectSuccessWithinMs: duration(alerts.expectSuccessWithin, 'expectSuccessWithin'),
  });
}

/**
 * The alerts a mark written before this form held (the compiled alerts as JSON, secrets included) as a
 * plan shows them now; undefined when `text` is not of that form (it is then the current form, or `none`).
 */
export function shownLegacyAlerts(text: string): Record<string, string> | undefined {
  if (!text.startsWith('{"run"') && !text.startsWith('{"watchdog"')) return undefined;
  try {
    const { run, watchdog } = JSON.parse(text) as CompiledAlerts;
    return shown({
      onMissed: run?.onMissed ?? watchdog?.onMissed,
      onLate: run?.onLate,
      lateAfterMs: run?.lateAfterMs,
      onSilent: watchdog?.onSilent,
      expectSuccessWithinMs: watchdog?.expectSuccessWithinMs,
    });
  } catch {
    return undefined;
  }
}

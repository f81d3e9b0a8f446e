import type { Priority } from '@temporalio/common';
import { createHash } from 'node:crypto';
import type { ScheduleDescription } from '@temporalio/client';
import type { PipelineSpec } from '../../pipeline/spec';
import { compileTrigger } from '../../schedule/compile-trigger';
import { compilePolicies, type CompiledPolicies } from '../../schedule/policies';
import type { Trigger } from '../../schedule/trigger-types';
import type { PipelineRunInput } from '../../workflows/run-types';
import { shownAlerts, shownLegacyAlerts } from './alert-view';
import type { PreparedJob } from './job-compile';
import type { JobRecord } from './store/job-record';
import { actualFingerprint, expectedFingerprint, formatMs } from './store/job-spec-match';
import { readJobState } from './store/job-state';
import { SCHEDULE_POLICY_KEYS } from './store/job-options';

/*
 * A job reduced to what it means, field by field, in one canonical text per field, so that a jobs file
 * and a schedule compare with `===` and a difference reads as `field: old -> new`. Both sides go through
 * the project's one model of each fact: the trigger through the spec fingerprints of edit detection
 * (job-spec-match.ts: `0 2 * * *`, `@daily`-style forms and calendars that mean the same compare equal),
 * policies through their compiled values (`10m` and `600s` are one grace), args as JSON with sorted keys
 * (a reordered object is the same object), alerts with each target by kind and hash, never its URL or
 * headers (alert-view.ts: a plan is printed in CI logs). The schedule side is read from what the server
 * holds (spec, policies, action), not from temporal-flow's record, so an edit made in the Temporal UI/CLI
 * shows. Paused and note are runtime state, kept apart (see job-plan.ts).
 */

/** The fields of a job's view, in the order a plan shows them. */
export const VIEW_FIELDS = [
  'pipeline',
  'definition',
  'trigger',
  'timezone',
  'exclusions',
  'dst',
  'args',
  ...SCHEDULE_POLICY_KEYS,
  'maxInstances',
  'misfireGraceTime',
  'onError',
  'alerts',
  'workflowId',
  'taskQueue',
  'priority',
] as const;
export type ViewField = (typeof VIEW_FIELDS)[number];

/** A job's meaning: one canonical text per field (absent: not known, e.g. a record lost to an outside edit). */
export type JobView = Partial<Record<ViewField, string>>;

/** A view with how its trigger reads to people (its `trigger` value is a fingerprint). */
export interface ShownView {
  readonly view: JobView;
  readonly trigger: string;
}

/** Temporal's catch-up window when none is set (what the server reports then). */
const DEFAULT_CATCHUP_MS = 365 * 86_400_000;
const NONE = 'none';

/** JSON with object keys sorted at every depth: equal values give equal texts. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

const shortHash = (value: unknown) =>
  createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 12);
const ms = (value: number | undefined) => (value ? formatMs(value) : NONE);
const instant = (value: Date | undefined) => (value ? value.toISOString() : NONE);

/** A fingerprint without its time zone (a field of its own). */
function whenKey(fingerprint: string): string {
  const { calendars, intervals } = JSON.parse(fingerprint) as { calendars: string[]; intervals: string[] };
  return canonicalJson({ calendars, intervals });
}

/** A trigger as a plan shows it: `cron "0 2 * * *"`, `every 30s`, `calendar {...}`. */
export function showTrigger(trigger: Trigger): string {
  const t = trigger as Record<string, unknown>;
  if ('cron' in t) return `cron ${JSON.stringify(t.cron)}`;
  if ('calendar' in t) return `calendar ${canonicalJson(t.calendar)}`;
  if ('runAt' in t) return `runAt ${canonicalJson(t.runAt)}`;
  const { timezone: _tz, exclude: _x, businessDays: _b, dst: _d, ...rest } = t;
  const text = (v: unknown) => (typeof v === 'string' ? v : canonicalJson(v));
  if ('every' in rest) {
    return `every ${text(rest.every)}${rest.offset !== undefined ? ` offset ${text(rest.offset)}` : ''}`;
  }
  return `every ${canonicalJson(rest)}`;
}

/** The fields a job record decides (trigger and policies as temporal-flow compiled them). */
function recordView(
  record: JobRecord,
  whenFingerprint: string | undefined,
  policies: CompiledPolicies,
): JobView {
  const { exclude, businessDays, dst } = record.trigger as {
    exclude?: unknown;
    businessDays?: unknown;
    dst?: unknown;
  };
  return {
    ...(whenFingerprint ? { trigger: whenKey(whenFingerprint), timezone: record.timezone } : {}),
    exclusions:
      exclude === undefined && businessDays === undefined ? NONE : canonicalJson({ exclude, businessDays }),
    dst: dst === undefined ? NONE : canonicalJson(dst),
    overlap: policies.overlap,
    catchupWindow: formatMs(policies.catchupWindowMs ?? DEFAULT_CATCHUP_MS),
    pauseOnFailure: String(policies.pauseOnFailure),
    jitter: ms(policies.jitterMs),
    startAt: instant(policies.startAt),
    endAt: instant(policies.endAt),
    maxInstances: String(policies.maxInstances),
    misfireGraceTime: ms(policies.misfireGraceMs),
    onError: record.onError ?? NONE,
    alerts: record.alerts ? canonicalJson(shownAlerts(record.alerts)) : NONE,
  };
}

/** What runs: the pipeline, its definition and args. */
function runView(spec: PipelineSpec | undefined, args: unknown): JobView {
  return spec
    ? { pipeline: spec.name, definition: shortHash(spec), args: canonicalJson(args ?? []) }
    : { pipeline: NONE, definition: NONE, args: canonicalJson(args ?? []) };
}

/** A run's priority and fairness as one text: what is set, or `none` (the server reports unset as zero). */
function priorityView(priority: Priority | undefined): string {
  const set = Object.entries(priority ?? {}).filter(([, v]) => v !== undefined && v !== 0 && v !== '');
  return set.length > 0 ? canonicalJson(Object.fromEntries(set)) : NONE;
}

/** The view of a job as a jobs file asks for it (compiled by prepareJob). */
export function desiredView(job: PreparedJob): ShownView {
  const { record, trigger, policies } = job.job;
  return {
    view: {
      ...runView(job.pipeline, job.options.action.args[0].args),
      ...recordView(record, expectedFingerprint(trigger), policies),
      workflowId: job.options.action.workflowId,
      taskQueue: job.options.action.taskQueue,
      priority: priorityView(job.options.action.priority),
    },
    trigger: showTrigger(record.trigger),
  };
}

/**
 * The view of what a schedule holds now: spec, policies and action as the server has them (an edit in
 * the Temporal UI/CLI shows), exclusions, DST policy and alerts from temporal-flow's record.
 */
export function observedView(d: ScheduleDescription): ShownView {
  const state = readJobState(d.typedSearchAttributes, d.action.memo, d.spec);
  const input = d.action.args?.[0] as Partial<PipelineRunInput> | undefined;
  const job = input?.job;
  const dstEntries = state.compiled?.dst !== undefined;
  const fromRecord = recordView(state.record, undefined, {
    overlap: d.policies.overlap,
    catchupWindowMs: d.policies.catchupWindow,
    pauseOnFailure: d.policies.pauseOnFailure,
    ...(d.spec.jitter ? { jitterMs: d.spec.jitter } : {}),
    ...(d.spec.startAt ? { startAt: d.spec.startAt } : {}),
    ...(d.spec.endAt ? { endAt: d.spec.endAt } : {}),
    ...(job?.misfireGraceMs !== undefined ? { misfireGraceMs: job.misfireGraceMs } : {}),
    maxInstances: job?.maxInstances ?? 1,
  });
  return {
    view: {
      ...runView(input?.spec, input?.args),
      ...fromRecord,
      trigger: whenKey(actualFingerprint(d.spec, dstEntries)),
      timezone: d.spec.timezone || 'UTC',
      onError: job?.onError ?? NONE,
      workflowId: d.action.workflowId,
      taskQueue: d.action.taskQueue,
      priority: priorityView(d.action.priority),
    },
    trigger: showTrigger(state.record.trigger),
  };
}

/**
 * The view temporal-flow's record of a job implies (trigger and policies only): what a job's last write
 * set, for when the view stored with it was lost (a `temporal schedule update` replaces the action's
 * memo; the record survives in the job's search attribute). Empty when the record no longer compiles.
 */
export function recordedView(record: JobRecord): ShownView {
  try {
    const trigger = compileTrigger(record.trigger, record.timezone);
    return {
      view: recordView(record, expectedFingerprint(trigger), compilePolicies(record.policies)),
      trigger: showTrigger(record.trigger),
    };
  } catch {
    return { view: {}, trigger: showTrigger(record.trigger) };
  }
}

/**
 * A view stored in an apply's mark (schedule-memo.ts AppliedMark), in today's form: a mark written before
 * alerts were shown by hash holds them as JSON, secrets included, which a drift line would print.
 */
export function markedView(view: Readonly<Record<string, string>>): JobView {
  const legacy = view.alerts === undefined ? undefined : shownLegacyAlerts(view.alerts);
  return legacy ? { ...view, alerts: canonicalJson(legacy) } : { ...view };
}

/** One field that differs: its texts on each side (a view's texts, the trigger as people read it). */
export interface FieldChange {
  readonly field: ViewField | 'paused' | 'note';
  /** The value before (absent on a create, or when it was not recorded). */
  readonly from?: string;
  /** The value after (absent on a delete). */
  readonly to?: string;
}

/** The fields where `to` differs from `from` (a field `to` does not know is left out). */
export function diffViews(from: ShownView, to: ShownView): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of VIEW_FIELDS) {
    const [a, b] = [from.view[field], to.view[field]];
    if (a === b || b === undefined) continue;
    const before = field === 'trigger' && a !== undefined ? from.trigger : a;
    changes.push({
      field,
      ...(before !== undefined ? { from: before } : {}),
      to: field === 'trigger' ? to.trigger : b,
    });
  }
  return changes;
}

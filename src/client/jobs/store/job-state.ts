import type { TypedSearchAttributes } from '@temporalio/common';
import type { ScheduleSpecDescription } from '@temporalio/client';
import { compileTrigger, type CompiledTrigger } from '../../../schedule/compile-trigger';
import type { Trigger } from '../../../schedule/trigger-types';
import { decodeJobRecord, type JobRecord } from './job-record';
import { actualFingerprint, expectedFingerprint, triggerFromSpec } from './job-spec-match';

/*
 * One of our jobs as its schedule holds it, read once for every use: describe and listings show it, and
 * each write starts from it. The record is decoded once and its trigger compiled once (and cached: a
 * listing of 1,000 jobs holds few distinct triggers), and the compiled trigger both tells whether the
 * schedule's spec still means it and is what a write that keeps the trigger sends again.
 */

/** One of our jobs as it stands. */
export interface JobState {
  /**
   * The record in effect: as stored, except that a spec edited outside temporal-flow (or a schedule
   * without a record) gives the trigger and time zone its spec means.
   */
  readonly record: JobRecord;
  /** `record.trigger` compiled, when the spec was found to mean it; undefined otherwise. */
  readonly compiled: CompiledTrigger | undefined;
  /** True when the schedule's spec no longer means the stored trigger (edited in the Temporal UI/CLI). */
  readonly editedOutside: boolean;
  /** With `editedOutside`: the trigger temporal-flow had stored. */
  readonly givenTrigger?: Trigger;
}

interface Compiled {
  readonly compiled: CompiledTrigger;
  readonly fingerprint: string;
}

const compiledCache = new Map<string, Compiled | null>();
const COMPILED_CACHE_SIZE = 1_000;

/** A stored trigger compiled, with its fingerprint; null when it no longer compiles. */
function compiledOf(trigger: Trigger, timezone: string): Compiled | null {
  // The year too: holiday sets in `exclude` are compiled for a horizon that starts this year.
  const key = `${timezone} ${new Date().getUTCFullYear()} ${JSON.stringify(trigger)}`;
  let value = compiledCache.get(key);
  if (value === undefined) {
    try {
      const compiled = compileTrigger(trigger, timezone);
      value = { compiled, fingerprint: expectedFingerprint(compiled) };
    } catch {
      value = null;
    }
    if (compiledCache.size >= COMPILED_CACHE_SIZE) compiledCache.clear();
    compiledCache.set(key, value);
  }
  return value;
}

/**
 * Reads one of our jobs from its schedule: the record from the action's memo (describe) or else the
 * search attribute (listings), compared with the spec the schedule has now.
 */
export function readJobState(
  attrs: TypedSearchAttributes | undefined,
  actionMemo: Record<string, unknown> | undefined,
  spec: ScheduleSpecDescription | undefined,
): JobState {
  const stored = decodeJobRecord(attrs, actionMemo);
  const compiled = stored && spec ? compiledOf(stored.trigger, stored.timezone) : undefined;
  const unchanged =
    !stored ||
    !spec ||
    compiled?.fingerprint === actualFingerprint(spec, compiled?.compiled.dst !== undefined);
  const record: JobRecord = {
    v: 1,
    trigger: stored && unchanged ? stored.trigger : spec ? triggerFromSpec(spec) : { cron: [] },
    timezone: unchanged ? (stored?.timezone ?? spec?.timezone ?? 'UTC') : spec?.timezone || 'UTC',
    policies: stored?.policies ?? {},
    ...(stored?.onError ? { onError: stored.onError } : {}),
    ...(stored?.alerts ? { alerts: stored.alerts } : {}),
    ...(stored?.deadManSince ? { deadManSince: stored.deadManSince } : {}),
    ...(stored?.alertsLost ? { alertsLost: stored.alertsLost } : {}),
    ...(stored?.alertQueue ? { alertQueue: stored.alertQueue } : {}),
    ...(typeof stored?.runMetadata === 'boolean' ? { runMetadata: stored.runMetadata } : {}),
  };
  return {
    record,
    compiled: unchanged ? compiled?.compiled : undefined,
    editedOutside: !unchanged,
    ...(stored && !unchanged ? { givenTrigger: stored.trigger } : {}),
  };
}

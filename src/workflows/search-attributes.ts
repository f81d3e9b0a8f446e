/*
 * Search attributes temporal-flow sets on its runs and schedules. Their names are persisted in
 * visibility: never rename one. `tflow setup` (setupNamespace), the dev server and docker-compose register each of them.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Name of the pipeline a run executes (every run we start, scheduled or not). */
export const PIPELINE_SEARCH_ATTRIBUTE = defineSearchAttributeKey(
  'TflowPipeline',
  SearchAttributeType.KEYWORD,
);

/**
 * How a scheduled run ended when it did not run its steps: `skipped:misfire` or `skipped:max-instances`
 * (values defined in outcomes.ts).
 * Upserted by the run itself, so that the job's history (a visibility query) shows skipped runs and why.
 */
export const OUTCOME_SEARCH_ATTRIBUTE = defineSearchAttributeKey('TflowOutcome', SearchAttributeType.KEYWORD);

/**
 * On schedules: the job as the user gave it (trigger, policies, onError), as JSON. A search attribute
 * rather than the memo because a schedule's memo cannot be updated, and rather than the action because
 * schedule listings include search attributes but not the action's arguments.
 */
export const JOB_SEARCH_ATTRIBUTE = defineSearchAttributeKey('TflowJob', SearchAttributeType.KEYWORD);

/**
 * On schedules: the job's alerts (as given, the scheduler's defaults merged in) and when its dead-man
 * switch was set, encoded by the client's payload codec (encrypted when it has one: targets can hold
 * secrets) and written as base64 (job-alerts-attribute.ts). A schedule search attribute because it is the
 * one part of a schedule that survives an edit made outside temporal-flow: `temporal schedule update`
 * replaces the action (its memo with it) and cannot change a schedule's search attributes. Text, because
 * a Keyword holds 255 bytes on SQL visibility.
 */
export const ALERTS_SEARCH_ATTRIBUTE = defineSearchAttributeKey('TflowAlerts', SearchAttributeType.TEXT);

/**
 * On schedules: when the job's alerts were last written (by any write of ours that writes `TflowAlerts`).
 * The alert evaluator lists the schedules whose alerts changed since its last look with one query on it,
 * instead of listing every schedule. Outside edits keep it, as they keep `TflowAlerts`.
 */
export const ALERTS_AT_SEARCH_ATTRIBUTE = defineSearchAttributeKey(
  'TflowAlertsAt',
  SearchAttributeType.DATETIME,
);

/**
 * On schedules: the jobs file (set) that owns the job, written when apply() creates or adopts it. Kept
 * where the schedule's own memo (which records the creating set and cannot be updated) says nothing, so
 * that an adopted job stays its set's across any outside edit.
 */
export const SET_SEARCH_ATTRIBUTE = defineSearchAttributeKey('TflowSet', SearchAttributeType.KEYWORD);

/** Temporal's own: the nominal time of a scheduled run (set by the schedule, read by the misfire guard). */
export const SCHEDULED_START_TIME_ATTRIBUTE = defineSearchAttributeKey(
  'TemporalScheduledStartTime',
  SearchAttributeType.DATETIME,
);

/** Temporal's own: the id of the schedule that started a run (set by the schedule; absent on other runs). */
export const SCHEDULED_BY_ID_ATTRIBUTE = defineSearchAttributeKey(
  'TemporalScheduledById',
  SearchAttributeType.KEYWORD,
);

/** Every custom search attribute the project needs, with its Temporal type name. */
export const TFLOW_SEARCH_ATTRIBUTES: Readonly<
  Record<string, 'Keyword' | 'Text' | 'Int' | 'Datetime' | 'Bool'>
> = {
  [PIPELINE_SEARCH_ATTRIBUTE.name]: 'Keyword',
  [OUTCOME_SEARCH_ATTRIBUTE.name]: 'Keyword',
  [JOB_SEARCH_ATTRIBUTE.name]: 'Keyword',
  [ALERTS_SEARCH_ATTRIBUTE.name]: 'Text',
  [SET_SEARCH_ATTRIBUTE.name]: 'Keyword',
  [ALERTS_AT_SEARCH_ATTRIBUTE.name]: 'Datetime',
};

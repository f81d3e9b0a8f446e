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
};

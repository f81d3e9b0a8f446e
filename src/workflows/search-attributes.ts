/*
 * Search attributes temporal-flow sets on its runs and schedules. Their names are persisted in
 * visibility: never rename one. The dev server and docker-compose register each of them.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Name of the pipeline a run executes (every run we start, scheduled or not). */
export const PIPELINE_SEARCH_ATTRIBUTE = defineSearchAttributeKey(
  'TflowPipeline',
  SearchAttributeType.KEYWORD,
);

/** Every custom search attribute the project needs, with its Temporal type name. */
export const TFLOW_SEARCH_ATTRIBUTES: Readonly<
  Record<string, 'Keyword' | 'Text' | 'Int' | 'Datetime' | 'Bool'>
> = {
  TflowPipeline: 'Keyword',
};

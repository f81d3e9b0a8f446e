import { Context } from '@temporalio/activity';
import type { JudgedAtRequest, LatestOccurrenceRequest } from '../workflows/job-guard-defs';
import { queuedJudgedAt } from './judged-at';
import { latestOccurrence } from './latest-occurrence';

/*
 * The read-only lookups of a late scheduled run's guards (workflows/lookup-activities.ts proxies them).
 * Persisted names: never rename one.
 */

/**
 * The latest occurrence a late run of a coalescing job stands for (ISO 8601), or null when it stands for
 * its own nominal time. See {@link latestOccurrence}.
 */
export async function tflowLatestOccurrence(req: LatestOccurrenceRequest): Promise<string | null> {
  const latest = await latestOccurrence(Context.current().client, req);
  return latest ? latest.toISOString() : null;
}

/**
 * The instant a late buffered run queued behind its predecessor is judged at (ISO 8601), or null when it
 * is judged at its own first workflow task. See {@link queuedJudgedAt}.
 */
export async function tflowJudgedAt(req: JudgedAtRequest): Promise<string | null> {
  const judgedAt = await queuedJudgedAt(Context.current().client, req);
  return judgedAt ? judgedAt.toISOString() : null;
}

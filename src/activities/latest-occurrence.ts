import type { Client } from '@temporalio/client';
import { describeScheduleIfAny } from '../client/describe-schedule';
import { msToTs, tsToMs } from '@temporalio/common/lib/time';
import type { LatestOccurrenceRequest } from '../workflows/job-guard-defs';

/*
 * Which occurrence a late run of a coalescing job stands for, asked of the server: its
 * ListScheduleMatchingTimes computes the schedule's fire times from the spec it holds now (edits made in
 * the Temporal UI, exclusions, startAt/endAt and jitter included), so nothing is re-derived here.
 */

/** The server's ListScheduleMatchingTimes answers at most this many times per call. */
const SERVER_PAGE = 1000;
/** First look-back window; quadrupled until a fire time shows up or the window reaches the lower bound. */
const FIRST_WINDOW_MS = 60_000;

/** Fire times in (fromMs, toMs], all of them (the server pages at 1,000). */
async function matchingTimes(client: Client, jobId: string, fromMs: number, toMs: number): Promise<number[]> {
  const out: number[] = [];
  let from = fromMs;
  for (;;) {
    const res = await client.workflowService.listScheduleMatchingTimes({
      namespace: client.options.namespace,
      scheduleId: jobId,
      startTime: msToTs(from),
      endTime: msToTs(toMs),
    });
    const page = (res.startTime ?? []).map((ts) => tsToMs(ts));
    out.push(...page);
    if (page.length < SERVER_PAGE) return out;
    from = page[page.length - 1]!;
  }
}

/**
 * The latest occurrence of the job that came due in (`after`, `until`] and that no other run of the
 * schedule took, or undefined: none, the schedule is gone, its overlap policy is no longer SKIP (other
 * occurrences had runs of their own), or it is paused (occurrences while paused are not missed ones:
 * e.g. a backfill of a paused job is judged by its own nominal time).
 *
 * The lower bound is the later of `after` and the newest other action of the schedule: with overlap SKIP
 * an occurrence after that action came due while the asking run was open, so Temporal skipped it.
 */
export async function latestOccurrence(
  client: Client,
  req: LatestOccurrenceRequest,
): Promise<Date | undefined> {
  const description = await describeScheduleIfAny(client, req.jobId);
  if (!description) return undefined;
  if (description.policies.overlap !== 'SKIP' || description.state.paused) return undefined;
  const until = Date.parse(req.until);
  let lower = Date.parse(req.after);
  for (const action of description.info.recentActions) {
    if (action.action.workflow?.workflowId === req.workflowId) continue;
    const at = action.scheduledAt.getTime();
    if (at > lower && at <= until) lower = at;
  }
  // Look back from `until` in growing windows: a long outage of a frequent job has many fire times.
  for (let window = FIRST_WINDOW_MS; ; window *= 4) {
    const from = Math.max(lower, until - window);
    const times = await matchingTimes(client, req.jobId, from, until);
    const due = times.filter((t) => t > lower && t <= until);
    if (due.length > 0) return new Date(Math.max(...due));
    if (from === lower) return undefined;
  }
}

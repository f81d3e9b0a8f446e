/*
 * The renewal of a job's horizon (the years its holiday exclusions, weekday corrections and DST policy are
 * compiled for) by its own runs. Pure, so that the workflow (job-guards.ts) and the renewal activity
 * (client/jobs/store/job-renewal.ts) take the same decision: the run asks for a renewal when its job's horizon ends
 * within the threshold, the activity writes only when the job's current schedule still says so (a renewal
 * that landed first leaves the others nothing to do).
 */

/** A renewal is due when less than this is left of the horizon: one year (365 days). */
export const HORIZON_RENEWAL_THRESHOLD_MS = 365 * 86_400_000;

/**
 * Whether a job whose horizon ends at `horizonEnd` (UTC ISO, see {@link RunJobContext.horizonEnd}) is due
 * for a renewal at `nowMs`: less than `thresholdMs` left (or the horizon already past). False without a
 * horizon, and for a value that is not an instant (nothing to renew by).
 */
export function horizonRenewalDue(
  horizonEnd: string | undefined,
  nowMs: number,
  thresholdMs = HORIZON_RENEWAL_THRESHOLD_MS,
): boolean {
  if (horizonEnd === undefined) return false;
  const end = Date.parse(horizonEnd);
  if (Number.isNaN(end)) return false;
  return end - nowMs < thresholdMs;
}

/*
 * The values of the `TflowOutcome` search attribute (see search-attributes.ts): how a scheduled run ended
 * when it did not run its steps. They are persisted in visibility and queried by value: never change one,
 * only add. Workflow-safe (no imports), read by the job guards, the client and the activities.
 */

/**
 * Why a run skipped its steps: `misfire` (started too late), `max-instances` (too many running),
 * `dst` (a fire of Temporal's that the job's DST policy does not run, see src/schedule/dst-compile.ts),
 * `concurrency` (its concurrency key or the pipeline's total was full and the pipeline says
 * `whenFull: 'skip'`; any run, scheduled or not).
 */
export const SKIP_REASONS = ['misfire', 'max-instances', 'dst', 'concurrency'] as const;

/** One of {@link SKIP_REASONS}: why any run skipped itself. */
export type RunSkipReason = (typeof SKIP_REASONS)[number];

/** Why a scheduled run's job guards skipped it (the reasons a job's alerts know). */
export type SkipReason = Exclude<RunSkipReason, 'concurrency'>;

const SKIPPED_PREFIX = 'skipped:';

/** The outcome a run that skipped itself for this reason records: `skipped:<reason>`. */
export function skippedOutcome(reason: RunSkipReason): string {
  return `${SKIPPED_PREFIX}${reason}`;
}

/** Every outcome of a run that skipped itself, for visibility queries. */
export const SKIPPED_OUTCOMES: readonly string[] = SKIP_REASONS.map(skippedOutcome);

/** The skip reason an outcome records; undefined for a run that did not skip itself (or an unknown value). */
export function skipReasonOf(outcome: string | undefined): RunSkipReason | undefined {
  if (!outcome?.startsWith(SKIPPED_PREFIX)) return undefined;
  const reason = outcome.slice(SKIPPED_PREFIX.length);
  return SKIP_REASONS.find((r) => r === reason);
}

import { TemporalFlowError } from '../../errors';
import type { JobSetProblem, PlanAction } from './job-plan-types';

/*
 * The errors of jobs as code (defineJobs, plan, apply). Each says what was wrong and what was written:
 * nothing, except ApplyFailedError, which lists the jobs already applied.
 */

/** Where a problem is: `job "etl" (jobs[2]), cron` or `jobs[3], jobId`. */
function place(p: JobSetProblem): string {
  const at = p.index !== undefined ? `jobs[${p.index}]` : undefined;
  const job = p.jobId !== undefined ? `job "${p.jobId}"${at ? ` (${at})` : ''}` : (at ?? 'the file');
  return `${job}, ${p.field}`;
}

/**
 * A jobs file with bad entries: every problem found, each naming its job and option. Nothing was read
 * from the namespace or written to it.
 */
export class JobSetError extends TemporalFlowError {
  constructor(
    readonly set: string | undefined,
    readonly problems: readonly JobSetProblem[],
  ) {
    const head =
      `jobs file${set ? ` "${set}"` : ''}: ${problems.length} problem${problems.length === 1 ? '' : 's'}, ` +
      'nothing applied';
    super('INVALID_JOB_SET', [head, ...problems.map((p) => `  ${place(p)}: ${p.message}`)].join('\n'));
  }
}

/** One job that changed between plan and apply: what the plan read, what it found. */
export interface StaleJob {
  readonly jobId: string;
  /** `created` (absent when planned, there now), `deleted`, or `changed`. */
  readonly change: 'created' | 'deleted' | 'changed';
}

/**
 * Jobs changed between plan and apply (by someone else, another apply, the Temporal UI/CLI): the plan no
 * longer says what apply would do. Nothing was written; plan again.
 */
export class PlanStaleError extends TemporalFlowError {
  constructor(readonly jobs: readonly StaleJob[]) {
    super(
      'PLAN_STALE',
      `the plan is out of date, nothing applied: ${jobs
        .map((j) => `job "${j.jobId}" was ${j.change}`)
        .join(', ')} since it was planned; plan again and review the new plan`,
    );
  }
}

/** The plan has blocked jobs (ids held by a schedule this set does not own): apply writes nothing then. */
export class PlanBlockedError extends TemporalFlowError {
  constructor(readonly jobIds: readonly string[]) {
    super(
      'PLAN_BLOCKED',
      `nothing applied: ${jobIds.map((id) => `"${id}"`).join(', ')} ${jobIds.length === 1 ? 'is' : 'are'} held by a schedule this set does not own (see the plan); rename the job in the file, remove the other schedule, or adopt a job of no set with --adopt`,
    );
  }
}

/** A job apply had written (or deleted) before it stopped. */
export interface AppliedJob {
  readonly jobId: string;
  readonly action: Exclude<PlanAction, 'unchanged' | 'blocked'>;
}

/** What went wrong, in words: the server's own (gRPC details) after the client's, when they add to it. */
function causeText(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const details = (cause.cause as { details?: unknown } | undefined)?.details;
  return typeof details === 'string' && details !== '' && !cause.message.includes(details)
    ? `${cause.message}: ${details}`
    : cause.message;
}

/**
 * Apply stopped half way: the jobs in `applied` are as planned, those in `notApplied` are as they were
 * before, and so is `failedJob`. The cause says why (a PlanStaleError when another writer got there first).
 */
export class ApplyFailedError extends TemporalFlowError {
  constructor(
    readonly applied: readonly AppliedJob[],
    readonly failedJob: string,
    readonly notApplied: readonly string[],
    options: { cause: unknown },
  ) {
    const cause = causeText(options.cause);
    const asBefore = [failedJob, ...notApplied];
    super(
      'APPLY_FAILED',
      `apply stopped at job "${failedJob}" (${cause}); applied: ${
        applied.length > 0 ? applied.map((a) => `${a.jobId} (${a.action})`).join(', ') : 'none'
      }; not applied, as before: ${asBefore.length > 0 ? asBefore.join(', ') : 'none'}. Plan again to see where things stand`,
      { cause: options.cause },
    );
  }
}

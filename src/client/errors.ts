import { ScheduleAlreadyRunning, ScheduleNotFoundError, isGrpcServiceError } from '@temporalio/client';
import { TemporalFlowError } from '../errors';

/** gRPC status codes (numbers, so that @grpc/grpc-js stays the SDK's own dependency). */
const GRPC_NOT_FOUND = 5;
const GRPC_FAILED_PRECONDITION = 9;

/** A job with this id exists already (pass `replaceExisting: true` to update it instead). */
export class JobAlreadyExistsError extends TemporalFlowError {
  constructor(
    readonly jobId: string,
    options?: { cause?: unknown },
  ) {
    super(
      'JOB_EXISTS',
      `job "${jobId}" already exists: choose another jobId, pass replaceExisting: true to update it, or removeJob() it first`,
      options,
    );
  }
}

/** No job (Temporal Schedule) has this id. */
export class JobNotFoundError extends TemporalFlowError {
  constructor(
    readonly jobId: string,
    options?: { cause?: unknown },
  ) {
    super('JOB_NOT_FOUND', `job "${jobId}" not found: listJobs() shows the existing ones`, options);
  }
}

/** The schedule exists but was not created by temporal-flow, so it cannot be managed as a job. */
export class ForeignScheduleError extends TemporalFlowError {
  constructor(readonly jobId: string) {
    super(
      'FOREIGN_SCHEDULE',
      `schedule "${jobId}" was not created by temporal-flow (it does not run pipelineWorkflow): manage it with the Temporal CLI or UI`,
    );
  }
}

/**
 * An edit of a job kept meeting concurrent edits: each attempt was computed from a description that
 * another writer changed before the edit landed, and after `attempts` tries (each re-reading the job and
 * re-applying the same change) it still had not landed. Nothing of this edit was written; the job is as the
 * other writers left it. Retry the call, or read the job first if the edit depends on its current state.
 */
export class JobConflictError extends TemporalFlowError {
  constructor(
    readonly jobId: string,
    readonly attempts: number,
  ) {
    super(
      'JOB_CONFLICT',
      `job "${jobId}" was changed by someone else during each of ${attempts} attempts to edit it, so this edit was not applied: retry it (getJob() shows the job as it is now)`,
    );
  }
}

function grpcCode(err: { code: number }): number {
  return err.code;
}

/**
 * True for the server's refusal of an update whose conflict token is stale. The workflow-based scheduler
 * (Temporal Server 1.x default) does not refuse: it drops such an update silently and answers OK, which
 * is why every write is checked afterwards (see job-update.ts); the newer CHASM scheduler answers
 * FAILED_PRECONDITION "mismatched conflict token".
 */
export function isStaleConflictToken(err: unknown): boolean {
  return (
    isGrpcServiceError(err) &&
    grpcCode(err) === GRPC_FAILED_PRECONDITION &&
    /conflict token/i.test(err.details ?? err.message)
  );
}

/**
 * Translates Temporal client errors about schedules into ours. The one place where wire errors are
 * mapped; anything else is rethrown unchanged.
 */
export function translateScheduleError(err: unknown, jobId: string): never {
  if (err instanceof ScheduleAlreadyRunning) throw new JobAlreadyExistsError(jobId, { cause: err });
  if (err instanceof ScheduleNotFoundError) throw new JobNotFoundError(jobId, { cause: err });
  // Raw workflowService calls (conflict-token updates) answer with the gRPC error itself.
  if (isGrpcServiceError(err) && grpcCode(err) === GRPC_NOT_FOUND)
    throw new JobNotFoundError(jobId, { cause: err });
  throw err;
}

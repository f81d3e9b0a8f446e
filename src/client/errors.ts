import { ScheduleAlreadyRunning, ScheduleNotFoundError } from '@temporalio/client';
import { TemporalFlowError } from '../errors';
import { missingCodecError } from '../codec/errors';

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
 * Translates Temporal client errors about schedules into ours. The one place where wire errors are
 * mapped; anything else is rethrown unchanged.
 */
export function translateScheduleError(err: unknown, jobId: string): never {
  if (err instanceof ScheduleAlreadyRunning) throw new JobAlreadyExistsError(jobId, { cause: err });
  if (err instanceof ScheduleNotFoundError) throw new JobNotFoundError(jobId, { cause: err });
  throw missingCodecError(err) ?? err;
}

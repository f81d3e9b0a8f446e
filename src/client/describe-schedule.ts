import {
  isGrpcDeadlineError,
  ScheduleNotFoundError,
  type Client,
  type ScheduleDescription,
} from '@temporalio/client';
import { isDescribeMetClose } from './errors';

/** Describes in a row that may fail for a passing reason before the last one's error is thrown. */
const DESCRIBE_ATTEMPTS = 5;
const DESCRIBE_RETRY_MS = 20;

/**
 * The schedule as it is now. A describe is a query the schedule's workflow answers, and two of its
 * failures pass: one that meets that workflow as it closes (a concurrent delete, or its continue-as-new:
 * see isDescribeMetClose), and one the server let pass its deadline (an overloaded server). Either is
 * asked again (5 tries in all, backing off), so that a schedule deleted under a reader is
 * ScheduleNotFoundError, as it is a moment later, and a busy moment fails no read, never a bare
 * ServiceError. A read only: a write that fails is never repeated here.
 *
 * @throws ScheduleNotFoundError when there is none.
 */
export async function describeSchedule(client: Client, jobId: string): Promise<ScheduleDescription> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.schedule.getHandle(jobId).describe();
    } catch (err) {
      const passing = isDescribeMetClose(err) || isGrpcDeadlineError(err);
      if (attempt >= DESCRIBE_ATTEMPTS || !passing) throw err;
      await new Promise((resolve) => setTimeout(resolve, DESCRIBE_RETRY_MS * 2 ** attempt));
    }
  }
}

/** The job's schedule as it is now, or undefined when it was deleted (a run may outlive its job). */
export async function describeScheduleIfAny(
  client: Client,
  jobId: string,
): Promise<ScheduleDescription | undefined> {
  try {
    return await describeSchedule(client, jobId);
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return undefined;
    throw err;
  }
}

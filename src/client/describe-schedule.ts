import { ScheduleNotFoundError, type Client, type ScheduleDescription } from '@temporalio/client';

/** The job's schedule as it is now, or undefined when it was deleted (a run may outlive its job). */
export async function describeScheduleIfAny(
  client: Client,
  jobId: string,
): Promise<ScheduleDescription | undefined> {
  try {
    return await client.schedule.getHandle(jobId).describe();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return undefined;
    throw err;
  }
}

import { ScheduleNotFoundError, type Client, type ScheduleDescription } from '@temporalio/client';
import { describeSchedule } from '../../describe-schedule';
import { restoreJobAlerts } from './job-alerts-attribute';

/**
 * The job's schedule as it is now, its alerts read from the attribute that outside edits keep (see
 * job-alerts-attribute.ts): every read of a job that writes it or acts on its alerts goes through here.
 *
 * @throws ScheduleNotFoundError when there is none; JobAlertsUnreadableError when its alerts cannot be decoded.
 */
export async function describeJobSchedule(client: Client, jobId: string): Promise<ScheduleDescription> {
  const d = await describeSchedule(client, jobId);
  return restoreJobAlerts(client.options.loadedDataConverter, jobId, d);
}

/** The job's schedule as {@link describeJobSchedule} reads it, or undefined when it was deleted. */
export async function describeJobIfAny(
  client: Client,
  jobId: string,
): Promise<ScheduleDescription | undefined> {
  try {
    return await describeJobSchedule(client, jobId);
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return undefined;
    throw err;
  }
}

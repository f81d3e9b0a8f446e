import type { DeadLetterActivities } from '../workflows/dead-letter-defs';
import type { JobGuardActivities } from '../workflows/job-guard-defs';
import type { SemaphoreActivities } from '../workflows/job-semaphore-defs';
import { tflowFileDeadLetter } from './dead-letter-activities';
import { jobGuardActivities } from './job-activities';
import { slotActivities } from './slot-activities';

/*
 * Built-in activities of the scheduler, registered on every worker by createWorker(): the semaphore's
 * (slot-activities.ts), the job guards' (job-activities.ts, guard-lookups.ts) and the dead-letter filing
 * (dead-letter-activities.ts). Their names are persisted in histories: never rename one.
 */

/** The built-in activities, as createWorker() registers them. */
export const schedulerActivities = {
  ...slotActivities,
  ...jobGuardActivities,
  tflowFileDeadLetter,
} satisfies SemaphoreActivities & JobGuardActivities & DeadLetterActivities;

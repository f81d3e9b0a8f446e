import type { DeadLetterActivities } from '../workflows/dead-letters/dead-letter-defs';
import type { JobGuardActivities } from '../workflows/guards/guard-defs';
import type { SemaphoreActivities } from '../workflows/semaphore/semaphore-defs';
import { tflowFileDeadLetter } from './dead-letters/dead-letter-activities';
import { jobGuardActivities } from './guards/guard-activities';
import { slotActivities } from './semaphore/slot-activities';

/*
 * Built-in activities of the scheduler, registered on every worker by createWorker(): the semaphore's
 * (slot-activities.ts), the job guards' (guard-activities.ts, guard-lookups.ts) and the dead-letter filing
 * (dead-letter-activities.ts). Their names are persisted in histories: never rename one.
 */

/** The built-in activities, as createWorker() registers them. */
export const schedulerActivities = {
  ...slotActivities,
  ...jobGuardActivities,
  tflowFileDeadLetter,
} satisfies SemaphoreActivities & JobGuardActivities & DeadLetterActivities;

import { proxyActivities } from '@temporalio/workflow';
import type { JobGuardActivities } from './job-guard-defs';

/**
 * The scheduler's read-only lookups a late scheduled run makes (coalesce.ts, judged-at.ts): short server
 * reads, retried a few times; a run that cannot get an answer is judged by its own nominal time.
 */
export const { tflowLatestOccurrence, tflowJudgedAt } = proxyActivities<JobGuardActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5, initialInterval: '200ms', maximumInterval: '5s' },
});

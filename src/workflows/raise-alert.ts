import { CancellationScope, log, proxyActivities } from '@temporalio/workflow';
import type { AlertDeliveryActivities, CompiledAlertTarget, JobAlertEvent } from './alert-types';

/*
 * Raises an alert durably: the built-in `tflowDeliverAlert` activity (registered by createWorker and
 * createWatchdogWorker) calls the target, with Temporal's retries, and shows in the history as any activity.
 */

/** Attempts of one alert delivery (a webhook that keeps failing is given up after these). */
export const ALERT_ATTEMPTS = 5;

/** Time an activity target gets per attempt; a webhook gets its own timeout plus a margin. */
const ACTIVITY_TARGET_TIMEOUT_MS = 60_000;

function deliverer(target: CompiledAlertTarget) {
  const timeoutMs = 'webhook' in target ? target.webhook.timeoutMs + 5_000 : ACTIVITY_TARGET_TIMEOUT_MS;
  return proxyActivities<AlertDeliveryActivities>({
    startToCloseTimeout: timeoutMs,
    retry: { maximumAttempts: ALERT_ATTEMPTS, initialInterval: '1s', maximumInterval: '30s' },
  }).tflowDeliverAlert;
}

/**
 * Delivers `event` to `target` and waits for it; a delivery that fails for good is logged, never allowed
 * to fail the run or the watchdog that raised it. Not cancellable: an alert raised is delivered.
 */
export async function raiseAlert(target: CompiledAlertTarget, event: JobAlertEvent): Promise<void> {
  try {
    await CancellationScope.nonCancellable(() => deliverer(target)(target, event));
  } catch (err) {
    log.error('alert delivery failed', { kind: event.kind, jobId: event.jobId, error: String(err) });
  }
}

import { CancellationScope, log, proxyActivities } from '@temporalio/workflow';
import type { AlertDeliveryActivities, CompiledAlertTarget, JobAlertEvent } from '../alert-types';

/*
 * Raises an alert durably: the built-in `tflowDeliverAlert` activity (registered by createWorker and
 * createWatchdogWorker) calls the target, with Temporal's retries, and shows in the history as any activity.
 */

/** Attempts of one alert delivery raised by a run (a webhook that keeps failing is given up after these). */
export const ALERT_ATTEMPTS = 5;

/**
 * How long the watchdog keeps trying one alert (silent, recovered, counted misses) before it gives up:
 * long enough for a webhook, a network or a Temporal server to come back. A run raises its own alerts
 * (missed, late) with {@link ALERT_ATTEMPTS} instead: it waits for them before it closes.
 */
export const WATCHDOG_ALERT_DELIVERY_MS = 3_600_000;

/** Time an activity target gets per attempt; a webhook gets its own timeout plus a margin. */
const ACTIVITY_TARGET_TIMEOUT_MS = 60_000;

/** How a delivery is retried: a run's a few times, the watchdog's for as long as {@link WATCHDOG_ALERT_DELIVERY_MS}. */
export type AlertPersistence = 'run' | 'watchdog';

function deliverer(target: CompiledAlertTarget, persistence: AlertPersistence) {
  const timeoutMs = 'webhook' in target ? target.webhook.timeoutMs + 5_000 : ACTIVITY_TARGET_TIMEOUT_MS;
  return proxyActivities<AlertDeliveryActivities>(
    persistence === 'watchdog'
      ? {
          startToCloseTimeout: timeoutMs,
          scheduleToCloseTimeout: WATCHDOG_ALERT_DELIVERY_MS,
          retry: { initialInterval: '1s', maximumInterval: '1m' },
        }
      : {
          startToCloseTimeout: timeoutMs,
          retry: { maximumAttempts: ALERT_ATTEMPTS, initialInterval: '1s', maximumInterval: '30s' },
        },
  ).tflowDeliverAlert;
}

/**
 * Delivers `event` to `target` and waits for it; a delivery that fails for good (a webhook's 4xx, or the
 * retries spent) is logged, never allowed to fail the run or the watchdog that raised it. Not
 * cancellable: an alert raised is delivered.
 */
export async function raiseAlert(
  target: CompiledAlertTarget,
  event: JobAlertEvent,
  persistence: AlertPersistence = 'run',
): Promise<void> {
  try {
    await CancellationScope.nonCancellable(() => deliverer(target, persistence)(target, event));
  } catch (err) {
    log.error('alert delivery failed', { kind: event.kind, jobId: event.jobId, error: String(err) });
  }
}

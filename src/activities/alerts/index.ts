/*
 * Alert delivery (webhook or activity) and the watchdog's read of the schedule.
 */
export {
  ALERT_TARGET_UNKNOWN,
  ALERT_WEBHOOK_REJECTED,
  ALERT_WEBHOOK_UNREACHABLE,
  type AlertActivitiesOptions,
  type AlertDelivery,
  type AlertHandler,
  type AlertSentFields,
  createAlertActivities,
} from './alert-activities';

/*
 * Shapes of the durable alerts (onMissed, onLate, the dead-man switch), shared by the scheduled runs, the
 * per-job watchdog workflow and the activity that delivers an alert. Persisted in run inputs and
 * histories: add optional fields only; never rename a type, signal or workflow name.
 */

/** Where an alert goes once compiled: an activity registered on the worker, or the built-in webhook. */
export type CompiledAlertTarget =
  { activity: string } | { webhook: { url: string; headers?: Record<string, string>; timeoutMs: number } };

/** What kind of alert an {@link JobAlertEvent} is. */
export type AlertKind = 'missed' | 'late' | 'silent' | 'recovered';

/**
 * What an alert target receives (the webhook posts it as JSON; `text` is the line Slack and compatible
 * incoming webhooks show).
 */
export interface JobAlertEvent {
  kind: AlertKind;
  jobId: string;
  /** One line for people: what happened and to which job. */
  text: string;
  /** When the alert was raised (workflow time, ISO 8601). */
  at: string;
  /** The run that raised it (missed, late, recovered). */
  workflowId?: string;
  runId?: string;
  /**
   * Why occurrences were missed: `misfire` or `max-instances` (a run skipped itself), `catchup-window`
   * (the server counted occurrences missed past the catch-up window) or `overlap` (the server skipped
   * occurrences because one was running), `not-started` (the server never started the occurrence and
   * counted nothing: its start failed until its catch-up window ended, e.g. while Temporal's database was
   * down).
   */
  reason?: 'misfire' | 'max-instances' | 'catchup-window' | 'overlap' | 'not-started';
  /** Nominal times of the missed occurrences, or of the late run (ISO 8601), when known. */
  nominalTimes?: string[];
  /** How many occurrences were missed (server counts), when the times are not known one by one. */
  count?: number;
  /** How late the run's first step started after its nominal time (late). */
  lateMs?: number;
  /** The last success before a silent period, or when the watch began if there was none (silent, recovered). */
  lastSuccessAt?: string;
  /** The job's `expectSuccessWithin` (silent, recovered). */
  expectSuccessWithinMs?: number;
  /** What the watchdog saw of the schedule when the job went silent: `paused`, `deleted` or `active`. */
  schedule?: 'paused' | 'deleted' | 'active';
}

/** The alerts a scheduled run raises itself, compiled into its {@link RunJobContext}. */
export interface RunAlerts {
  /** Raised when the run skips itself (misfire, max-instances). */
  onMissed?: CompiledAlertTarget;
  /** Raised when the run's first step starts later than `lateAfterMs` after its nominal time. */
  onLate?: CompiledAlertTarget;
  lateAfterMs?: number;
  /** The job has a watchdog: a run that completes tells it (see watchdog-defs.ts). */
  watchdog?: boolean;
}

/** The alert delivery activity (activities/alerts/alert-activities.ts; persisted name: never rename). */
export interface AlertDeliveryActivities {
  /** Delivers one alert to its target. */
  tflowDeliverAlert: (target: CompiledAlertTarget, event: JobAlertEvent) => Promise<void>;
}

export { compileTrigger, validateTimezone, intervalMs, triggerKind } from './compile-trigger';
export type { CompiledTrigger } from './compile-trigger';
export { validateCron, CRON_ALIASES } from './cron';
export { InvalidPolicyError, InvalidTriggerError } from './errors';
export { compilePolicies, MIN_CATCHUP_WINDOW_MS } from './policies';
export type { CompiledPolicies, JobPolicies } from './policies';
export type {
  CalendarFields,
  CalendarTrigger,
  CalendarValue,
  CronTrigger,
  IntervalTrigger,
  OneOffTrigger,
  Trigger,
  TriggerKind,
} from './trigger-types';

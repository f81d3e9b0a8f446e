export { compileTrigger, validateTimezone, intervalMs, triggerKind } from './compile-trigger';
export type { CompiledTrigger } from './compile-trigger';
export { validateCron, CRON_ALIASES } from './cron';
export { InvalidPolicyError, InvalidTriggerError, InvalidWindowError, UnknownHolidaysError } from './errors';
export { RunAtInPastError } from './one-off-due';
export type { GraceSource } from './one-off-due';
export { compilePolicies, MIN_CATCHUP_WINDOW_MS } from './policies';
export type { CompiledPolicies, JobPolicies } from './policies';
export type {
  CalendarFields,
  CalendarTrigger,
  CalendarValue,
  CronTrigger,
  Exclusion,
  Exclusions,
  IntervalTrigger,
  OneOffTrigger,
  Trigger,
  TriggerKind,
} from './trigger-types';
export { parseCron } from './cron';
export type { ParsedCron } from './cron';
export { compileCalendar, compileCalendars } from './calendar';
export type { CompiledCalendar } from './calendar';
export { previewTrigger, MAX_PREVIEW } from './preview';
export { triggerInWords } from './trigger-words';
export type { PreviewExcludedDate, PreviewFireTime, PreviewOptions, TriggerPreview } from './preview';
export type { DstWarning } from './dst';
export type { FireSpec } from './fire-times';
export type { CalendarRange } from './trigger-types';
export { validateDstPolicy } from './dst-policy';
export type { DstPolicy } from './dst-policy';
export { DST_HORIZON_YEARS } from './dst-compile';
export type {
  DryRunAssumptions,
  DryRunDecision,
  DryRunOccurrence,
  DryRunOptions,
  DryRunSkipReason,
  JobDryRun,
  TimeSpan,
} from './dry-run-types';

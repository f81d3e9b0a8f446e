/** How a check of `tflow doctor` came out. `fail` blocks runs; `warn` deserves a look; `unknown`: not readable. */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'unknown' | 'skipped';

/** What each check looks at (stable ids: scripts read `--json`). */
export type CheckId =
  | 'server'
  | 'namespace'
  | 'search-attributes'
  | 'retention'
  | 'workers'
  | 'step-queues'
  | 'semaphores'
  | 'jobs'
  | 'job-parts'
  | 'job-alerts'
  | 'schedule-start-rate';

/** One check: what was found, in plain words, and what to do about it. */
export interface DoctorCheck {
  id: CheckId;
  status: CheckStatus;
  /** What was found. */
  summary: string;
  /** What to do, when something is to be done. */
  fix?: string;
}

/** What {@link runDoctor} found. */
export interface DoctorReport {
  address: string;
  namespace: string;
  taskQueue: string;
  /** False when a check failed, i.e. runs cannot start or progress. */
  ok: boolean;
  checks: DoctorCheck[];
}

import type { Sinks } from '@temporalio/workflow';

/** What every run event says of the run it is about. */
export interface RunEventBase {
  pipeline: string;
  jobId?: string;
  workflowId: string;
  runId: string;
  /** Nominal time of a scheduled run (Temporal's `TemporalScheduledStartTime`), ISO 8601. */
  nominalTime?: string;
}

/** Event emitted once when a pipeline run starts (its first workflow task; not during replay). */
export type RunStartedEvent = RunEventBase;

/** Event emitted once when a pipeline run ends (not during replay). */
export interface RunFinishedEvent extends RunEventBase {
  status: 'completed' | 'failed' | 'skipped';
  skipReason?: string;
  durationMs: number;
  /** Schedule lag: actual start minus nominal time, for scheduled runs. */
  lagMs?: number;
  failedStep?: string;
}

/**
 * Sinks the workflow calls; the worker implements them (logs, metrics). Sink names are looked up by the
 * worker at run time: renaming one silently drops its events from older bundles.
 */
export interface TflowSinks extends Sinks {
  tflow: {
    runStarted(event: RunStartedEvent): void;
    runFinished(event: RunFinishedEvent): void;
  };
}

import type { Sinks } from '@temporalio/workflow';

/** Event emitted once when a pipeline run ends (not during replay). */
export interface RunFinishedEvent {
  pipeline: string;
  jobId?: string;
  workflowId: string;
  runId: string;
  status: 'completed' | 'failed' | 'skipped';
  skipReason?: string;
  durationMs: number;
  /** Schedule lag: actual start minus nominal time, for scheduled runs. */
  lagMs?: number;
  failedStep?: string;
}

/** Sinks the workflow calls; the worker implements them (logs, metrics). */
export interface TflowSinks extends Sinks {
  tflow: {
    runFinished(event: RunFinishedEvent): void;
  };
}

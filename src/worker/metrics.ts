import { Counter, Histogram, Registry } from 'prom-client';
import type { RunFinishedEvent } from '../workflows/sinks';

/**
 * Prometheus metrics of pipeline runs, fed by the worker's `onRunFinished` events:
 *
 * - `tflow_runs_finished_total{pipeline,job,status}`: runs that ended (completed, failed, skipped);
 * - `tflow_runs_skipped_total{pipeline,job,reason}`: skipped runs by reason (misfire, max-instances);
 * - `tflow_run_duration_seconds{pipeline,status}`: run durations;
 * - `tflow_schedule_lag_seconds{pipeline,job}`: actual start minus nominal time of scheduled runs.
 */
export class WorkerMetrics {
  readonly registry: Registry;
  private readonly finished: Counter<'pipeline' | 'job' | 'status'>;
  private readonly skipped: Counter<'pipeline' | 'job' | 'reason'>;
  private readonly duration: Histogram<'pipeline' | 'status'>;
  private readonly lag: Histogram<'pipeline' | 'job'>;

  constructor(registry: Registry = new Registry()) {
    this.registry = registry;
    this.finished = new Counter({
      name: 'tflow_runs_finished_total',
      help: 'Pipeline runs that ended, by status',
      labelNames: ['pipeline', 'job', 'status'],
      registers: [registry],
    });
    this.skipped = new Counter({
      name: 'tflow_runs_skipped_total',
      help: 'Pipeline runs skipped without running a step, by reason',
      labelNames: ['pipeline', 'job', 'reason'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'tflow_run_duration_seconds',
      help: 'Duration of pipeline runs',
      labelNames: ['pipeline', 'status'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
      registers: [registry],
    });
    this.lag = new Histogram({
      name: 'tflow_schedule_lag_seconds',
      help: 'Actual start minus nominal time of scheduled runs',
      labelNames: ['pipeline', 'job'],
      buckets: [0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600],
      registers: [registry],
    });
  }

  /** Records one finished run; pass it as `createWorker({ onRunFinished })`. */
  readonly recordRun = (event: RunFinishedEvent): void => {
    const job = event.jobId ?? '';
    this.finished.inc({ pipeline: event.pipeline, job, status: event.status });
    if (event.status === 'skipped')
      this.skipped.inc({ pipeline: event.pipeline, job, reason: event.skipReason ?? 'unknown' });
    this.duration.observe({ pipeline: event.pipeline, status: event.status }, event.durationMs / 1000);
    if (event.lagMs !== undefined)
      this.lag.observe({ pipeline: event.pipeline, job }, Math.max(0, event.lagMs) / 1000);
  };
}

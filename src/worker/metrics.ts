import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RunFinishedEvent, RunStartedEvent } from '../workflows/sinks';
import { TemporalFlowError } from '../errors';
import { JobMetrics, type JobLister, type JobMetricsOptions } from './job-metrics';
import { FlowMetrics, type FlowLister, type FlowMetricsOptions } from './flow-metrics';
import type { StepRetriedEvent } from './step-retries';

/**
 * Prometheus metrics of pipeline runs, fed by the worker's `onRunStarted`, `onRunFinished` and
 * `onStepRetried` events (see {@link WorkerMetrics.handlers}), and of jobs ({@link WorkerMetrics.watchJobs}):
 *
 * - `tflow_worker_info`: 1 while the process serves metrics (alert on its absence);
 * - `tflow_runs_started_total{pipeline,job}`: runs that started;
 * - `tflow_runs_finished_total{pipeline,job,status}`: runs that ended (completed, failed, skipped);
 * - `tflow_runs_skipped_total{pipeline,job,reason}`: skipped runs by reason (misfire, max-instances);
 * - `tflow_run_duration_seconds{pipeline,status}`: run durations;
 * - `tflow_schedule_lag_seconds{pipeline,job}`: actual start minus nominal time of scheduled runs;
 * - `tflow_step_retries_total{pipeline,job,step}`: step attempts after the first (a map's items count
 *   under the map's id).
 */
export class WorkerMetrics {
  readonly registry: Registry;
  private readonly finished: Counter<'pipeline' | 'job' | 'status'>;
  private readonly skipped: Counter<'pipeline' | 'job' | 'reason'>;
  private readonly duration: Histogram<'pipeline' | 'status'>;
  private readonly lag: Histogram<'pipeline' | 'job'>;
  private readonly started: Counter<'pipeline' | 'job'>;
  private readonly retries: Counter<'pipeline' | 'job' | 'step'>;
  private jobs: JobMetrics | undefined;
  private flows: FlowMetrics | undefined;

  constructor(registry: Registry = new Registry()) {
    this.registry = registry;
    new Gauge({
      name: 'tflow_worker_info',
      help: 'Always 1: the worker process serves temporal-flow metrics',
      registers: [registry],
    }).set(1);
    this.started = new Counter({
      name: 'tflow_runs_started_total',
      help: 'Pipeline runs that started',
      labelNames: ['pipeline', 'job'],
      registers: [registry],
    });
    this.retries = new Counter({
      name: 'tflow_step_retries_total',
      help: 'Step attempts after the first one',
      labelNames: ['pipeline', 'job', 'step'],
      registers: [registry],
    });
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

  /** The three recorders, to spread into `createWorker({ ...metrics.handlers })`. */
  get handlers() {
    return {
      onRunStarted: this.recordRunStarted,
      onRunFinished: this.recordRun,
      onStepRetried: this.recordStepRetried,
    };
  }

  /**
   * Adds the job metrics (`tflow_jobs`, `tflow_job_next_run_seconds`, `tflow_job_runs_missed`, see
   * {@link JobMetrics}), read from `scheduler` when scraped. Every worker replica that calls it lists the
   * jobs: call it on one of them (or in a process of its own).
   */
  watchJobs(scheduler: JobLister, opts: JobMetricsOptions = {}): void {
    if (this.jobs) {
      throw new TemporalFlowError(
        'JOB_METRICS_TWICE',
        'watchJobs() was already called on these metrics: its gauges are registered once per registry',
      );
    }
    this.jobs = new JobMetrics(scheduler, this.registry, opts);
  }

  /**
   * Adds the flow metrics (`tflow_flow_events_pending`, `tflow_flow_controls`, `tflow_flow_next_run_seconds`,
   * see {@link FlowMetrics}): what waits in debounce, batch, throttle and dedupe, read when scraped, e.g.
   * `metrics.watchFlows((o) => listFlowControls(client, o))`. Call it on one worker replica.
   */
  watchFlows(list: FlowLister, opts: FlowMetricsOptions = {}): void {
    if (this.flows) {
      throw new TemporalFlowError(
        'FLOW_METRICS_TWICE',
        'watchFlows() was already called on these metrics: its gauges are registered once per registry',
      );
    }
    this.flows = new FlowMetrics(list, this.registry, opts);
  }

  /** Records one started run; pass it as `createWorker({ onRunStarted })`. */
  readonly recordRunStarted = (event: RunStartedEvent): void => {
    this.started.inc({ pipeline: event.pipeline, job: event.jobId ?? '' });
  };

  /** Records one step retry; pass it as `createWorker({ onStepRetried })`. */
  readonly recordStepRetried = (event: StepRetriedEvent): void => {
    this.retries.inc({
      pipeline: event.pipeline ?? '',
      job: event.jobId ?? '',
      // A map item's index would make a series per item: count it under its map.
      step: event.step.replace(/\[\d+\]$/, ''),
    });
  };

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

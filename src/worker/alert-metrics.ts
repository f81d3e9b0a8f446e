import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AlertCheck, AlertDelivery, AlertEvaluation } from '../activities/alerts/alert-activities';

/**
 * Prometheus metrics of the durable alerts, fed by the workers' `onAlertDelivery`:
 *
 * - `tflow_alert_deliveries_total{kind,outcome}`: attempts at delivering an alert (kind: missed, late,
 *   silent, recovered; outcome: delivered, failed);
 * - `tflow_job_silent{job}`: 1 while a dead-man period of the job is open (set when this worker delivers,
 *   or tries to, its `silent` alert; back to 0 with its `recovered` one);
 * - `tflow_job_alerts_unevaluable{job}`: 1 while the job's watchdog cannot read the job (its last read
 *   failed: an overloaded server, a codec key the watchdog worker lacks, a permission), fed by the watchdog
 *   worker's `onAlertEvaluation`; back to 0 at the first read that succeeds;
 * - `tflow_alert_check_lag_seconds{due}`: how late after it was due the evaluator checked a job's
 *   dead-man deadline (`due="deadline"`) or its counters after a nominal time (`due="counts"`), fed by
 *   `onAlertCheck`: a p99 growing past a wave (5 s) says the evaluator is falling behind.
 *
 * Give it the registry of the worker's {@link WorkerMetrics} to serve both on one `/metrics`.
 */
export class AlertMetrics {
  readonly registry: Registry;
  private readonly deliveries: Counter<'kind' | 'outcome'>;
  private readonly silent: Gauge<'job'>;
  private readonly unevaluable: Gauge<'job'>;
  private readonly checkLag: Histogram<'due'>;

  constructor(registry: Registry = new Registry()) {
    this.registry = registry;
    this.deliveries = new Counter({
      name: 'tflow_alert_deliveries_total',
      help: 'Attempts at delivering a job alert, by kind and outcome',
      labelNames: ['kind', 'outcome'],
      registers: [registry],
    });
    this.silent = new Gauge({
      name: 'tflow_job_silent',
      help: '1 while a dead-man (expectSuccessWithin) period of the job is open',
      labelNames: ['job'],
      registers: [registry],
    });
    this.unevaluable = new Gauge({
      name: 'tflow_job_alerts_unevaluable',
      help: "1 while the job's watchdog cannot read the job (its alerts are not evaluated)",
      labelNames: ['job'],
      registers: [registry],
    });
    this.checkLag = new Histogram({
      name: 'tflow_alert_check_lag_seconds',
      help: "How late after it was due the alert evaluator checked a job's deadline or counters",
      labelNames: ['due'],
      buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
      registers: [registry],
    });
  }

  /** Records one due check of a job; pass it as `onAlertCheck` of createWatchdogWorker. */
  readonly recordCheck = (check: AlertCheck): void => {
    for (const due of check.due) this.checkLag.observe({ due }, check.lagMs / 1000);
  };

  /** Records a watchdog's read; pass it as `onAlertEvaluation` of createWatchdogWorker. */
  readonly recordEvaluation = (evaluation: AlertEvaluation): void => {
    this.unevaluable.set({ job: evaluation.jobId }, evaluation.outcome === 'failed' ? 1 : 0);
  };

  /** Records one delivery attempt; pass it as `onAlertDelivery` of createWorker / createWatchdogWorker. */
  readonly recordDelivery = (delivery: AlertDelivery): void => {
    this.deliveries.inc({ kind: delivery.kind, outcome: delivery.outcome });
    if (delivery.kind === 'silent') this.silent.set({ job: delivery.jobId }, 1);
    if (delivery.kind === 'recovered') this.silent.set({ job: delivery.jobId }, 0);
  };
}

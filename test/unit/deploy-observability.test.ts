import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { WorkerMetrics } from '../../src/worker/metrics';
import { AlertMetrics } from '../../src/worker/alert-metrics';

/*
 * deploy/grafana-dashboard.json and deploy/prometheus-rules.yml name only metrics the worker exports
 * (WorkerMetrics with its job metrics): a renamed metric fails here, not silently in a dashboard.
 */
const deploy = path.resolve(__dirname, '../../deploy');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const rules = (
  parse(readFileSync(path.join(deploy, 'prometheus-rules.yml'), 'utf8')) as {
    groups: { name: string; rules: Rule[] }[];
  }
).groups.flatMap((g) => g.rules);

interface Panel {
  title: string;
  targets: { expr: string }[];
}
const dashboard = JSON.parse(readFileSync(path.join(deploy, 'grafana-dashboard.json'), 'utf8')) as {
  panels: Panel[];
};

/** What the worker exports: metric name -> type. */
async function exported(): Promise<Map<string, string>> {
  const metrics = new WorkerMetrics();
  metrics.watchJobs({ listJobs: async () => [] });
  // The alert metrics join the same registry (examples/worker.ts does the same).
  new AlertMetrics(metrics.registry);
  const all = await metrics.registry.getMetricsAsJSON();
  return new Map(all.map((m) => [m.name, String(m.type)]));
}

/** The tflow_* metrics an expression reads, a histogram's series under the histogram's name. */
function metricsIn(expr: string, known: Map<string, string>): string[] {
  return [...expr.matchAll(/\btflow_[a-z_]+/g)].map(([name]) => {
    const base = name.replace(/_(bucket|sum|count)$/, '');
    return base !== name && known.get(base) === 'histogram' ? base : name;
  });
}

describe('deploy/ dashboard and alert rules', () => {
  it('name only metrics the worker exports', async () => {
    const known = await exported();
    const named = [
      ...rules.map((r) => r.expr),
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
    ].flatMap((e) => metricsIn(e, known));
    expect(named.length).toBeGreaterThan(10);
    expect([...new Set(named.filter((n) => !known.has(n)))]).toEqual([]);
  });

  it('finds a metric the worker does not export (the check can fail)', async () => {
    const known = await exported();
    const named = metricsIn('rate(tflow_runs_finshed_total[5m]) + tflow_run_duration_seconds_bucket', known);
    expect(named.filter((n) => !known.has(n))).toEqual(['tflow_runs_finshed_total']);
  });

  it('alert on failing runs, misfire skips, schedule lag p99, a worker down and an overdue next run', () => {
    const byName = new Map(rules.map((r) => [r.alert, r]));
    expect(byName.get('TflowRunsFailing')?.expr).toContain('status="failed"');
    expect(byName.get('TflowRunsSkippedByMisfire')?.expr).toContain('reason="misfire"');
    expect(byName.get('TflowScheduleLagHigh')?.expr).toContain('histogram_quantile(0.99');
    expect(byName.get('TflowWorkerDown')?.expr).toContain('absent(tflow_worker_info)');
    expect(byName.get('TflowNextRunOverdue')?.expr).toContain('tflow_job_next_run_seconds');
    for (const rule of rules) {
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      expect(rule.labels?.severity, rule.alert).toMatch(/^(page|warn)$/);
    }
  });

  it('the dashboard shows every metric the alert rules read', async () => {
    const known = await exported();
    const shown = new Set(
      dashboard.panels.flatMap((p) => p.targets.flatMap((t) => metricsIn(t.expr, known))),
    );
    const alerted = [...new Set(rules.flatMap((r) => metricsIn(r.expr, known)))];
    expect(alerted).toContain('tflow_job_silent');
    expect(alerted).toContain('tflow_alert_deliveries_total');
    expect(alerted.filter((m) => !shown.has(m))).toEqual([]);
  });

  it('the dashboard has a query in every panel', () => {
    expect(dashboard.panels.length).toBeGreaterThan(5);
    for (const p of dashboard.panels) expect(p.targets.length, p.title).toBeGreaterThan(0);
  });
});

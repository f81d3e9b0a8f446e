import { Counter, Gauge, type Registry } from 'prom-client';
import type { FlowControlListing, FlowControlSummary, FlowListOptions } from '../client/runs/flow-list';

/** What the flow metrics read flow controls from: `listFlowControls` bound to a client. */
export type FlowLister = (opts: FlowListOptions) => Promise<FlowControlListing>;

/** Options of {@link FlowMetrics}. */
export interface FlowMetricsOptions {
  /**
   * A reading older than this is refreshed at the next scrape; scrapes in between share it. Each refresh is
   * one listing plus one query per running flow control (10 at a time). @default 15_000
   */
  refreshMs?: number;
  /** @internal the clock, for tests */
  now?: () => number;
}

interface Reading {
  flows: FlowControlSummary[];
  unreadable: number;
  at: number;
}

/**
 * Metrics of the work waiting in flow controls (debounce, batch, throttle, dedupe), read from Temporal when
 * Prometheus scrapes, at most once per `refreshMs`:
 *
 * - `tflow_flow_events_pending{pipeline,control}`: events held and not yet in a run, summed over keys;
 * - `tflow_flow_controls{pipeline,control}`: running flow controls (one per key that had events lately);
 * - `tflow_flow_next_run_seconds{pipeline,control}`: seconds until the soonest run due (negative when
 *   overdue: its worker is not keeping up, or none runs);
 * - `tflow_flow_controls_unreadable`: running flow controls that did not answer their query in 5 s (no
 *   worker polls their task queue, or it is overloaded); the others are counted all the same;
 * - `tflow_flow_list_errors_total`: readings that failed (the previous values are served meanwhile).
 */
export class FlowMetrics {
  private reading: Reading | undefined;
  private refreshing: Promise<Reading | undefined> | undefined;
  private readonly refreshMs: number;
  private readonly now: () => number;
  private readonly errors: Counter;

  constructor(
    private readonly list: FlowLister,
    registry: Registry,
    opts: FlowMetricsOptions = {},
  ) {
    this.refreshMs = opts.refreshMs ?? 15_000;
    this.now = opts.now ?? Date.now;
    const read = () => this.current();
    const now = this.now;
    this.errors = new Counter({
      name: 'tflow_flow_list_errors_total',
      help: 'Readings of the flow controls (for the flow metrics) that failed',
      registers: [registry],
      async collect() {
        await read();
      },
    });
    const byPipeline = (
      name: string,
      help: string,
      value: (flows: FlowControlSummary[]) => number | undefined,
    ) =>
      new Gauge({
        name,
        help,
        labelNames: ['pipeline', 'control'],
        registers: [registry],
        async collect() {
          const r = await read();
          this.reset();
          const groups = new Map<string, FlowControlSummary[]>();
          for (const f of r?.flows ?? []) {
            const k = `${f.pipeline}\u0000${f.kind}`;
            groups.set(k, [...(groups.get(k) ?? []), f]);
          }
          for (const flows of groups.values()) {
            const v = value(flows);
            if (v !== undefined) this.set({ pipeline: flows[0]!.pipeline, control: flows[0]!.kind }, v);
          }
        },
      });
    new Gauge({
      name: 'tflow_flow_controls_unreadable',
      help: 'Running flow controls that did not answer their query (no worker on their task queue?)',
      registers: [registry],
      async collect() {
        const r = await read();
        this.reset();
        if (r) this.set(r.unreadable);
      },
    });
    byPipeline('tflow_flow_events_pending', 'Events held by flow controls and not yet in a run', (flows) =>
      flows.reduce((n, f) => n + f.events, 0),
    );
    byPipeline(
      'tflow_flow_controls',
      'Running flow controls (debounce, batch, throttle, dedupe)',
      (flows) => flows.length,
    );
    byPipeline(
      'tflow_flow_next_run_seconds',
      'Seconds until the soonest run due of a flow control',
      (flows) => {
        const due = flows.map((f) => f.dueAt).filter((d): d is number => d !== undefined);
        return due.length === 0 ? undefined : (Math.min(...due) - now()) / 1000;
      },
    );
  }

  private async current(): Promise<Reading | undefined> {
    if (this.reading && this.now() - this.reading.at < this.refreshMs) return this.reading;
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async refresh(): Promise<Reading | undefined> {
    const at = this.now();
    try {
      const { flows, unreadable } = await this.list({});
      this.reading = { flows, unreadable: unreadable.length, at };
    } catch {
      this.errors.inc();
    }
    return this.reading;
  }
}

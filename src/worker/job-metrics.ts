import { Counter, Gauge, type Registry } from 'prom-client';
import type { JobDescription, JobFilter } from '../client/jobs/job-types';

/** What the job metrics read jobs from: a {@link PipelineScheduler}. */
export interface JobLister {
  listJobs(filter: JobFilter & { details: true }): Promise<JobDescription[]>;
}

export interface JobMetricsOptions {
  /**
   * A listing older than this is refreshed at the next scrape; scrapes in between (and at the same time)
   * share one listing, so a scrape storm costs the server nothing more. Each refresh is one listing call
   * per 1,000 schedules plus one describe per job (16 at a time). @default 60_000
   */
  refreshMs?: number;
  /** Which jobs to watch (temporal-flow's jobs only; e.g. `{ pipeline }`). @default all of them */
  filter?: Omit<JobFilter, 'details' | 'includeForeign'>;
  /** @internal the clock, for tests */
  now?: () => number;
}

interface Listing {
  jobs: Extract<JobDescription, { foreign: false }>[];
  /** When the listing was taken (ms). */
  at: number;
}

/**
 * Job metrics read from Temporal's schedules when Prometheus scrapes, at most once per `refreshMs`:
 *
 * - `tflow_jobs{state}`: jobs by state (`active`, `paused`);
 * - `tflow_job_next_run_seconds{job,pipeline}`: seconds until the job's next run; below zero when
 *   Temporal's own next run time had already passed at the listing (the schedule is not firing);
 * - `tflow_job_runs_missed{job,reason}`: runs Temporal did not start, by reason (`catchup-window`: found
 *   later than the catch-up window; `overlap`: one was running), as the schedule counts them;
 * - `tflow_jobs_listed_timestamp_seconds`: when the jobs were last listed;
 * - `tflow_jobs_list_errors_total`: listings that failed (the previous values are served meanwhile).
 */
export class JobMetrics {
  private listing: Listing | undefined;
  private refreshing: Promise<Listing | undefined> | undefined;
  private readonly refreshMs: number;
  private readonly now: () => number;
  private readonly errors: Counter;

  constructor(
    private readonly lister: JobLister,
    registry: Registry,
    private readonly opts: JobMetricsOptions = {},
  ) {
    this.refreshMs = opts.refreshMs ?? 60_000;
    this.now = opts.now ?? Date.now;
    const read = () => this.current();
    this.errors = new Counter({
      name: 'tflow_jobs_list_errors_total',
      help: 'Listings of the jobs (for the job metrics) that failed',
      registers: [registry],
      // Collected first: the listing it counts is taken (or found fresh) before it is read.
      async collect() {
        await read();
      },
    });
    new Gauge({
      name: 'tflow_jobs',
      help: 'temporal-flow jobs, by state (active, paused)',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        const l = await read();
        this.reset();
        if (!l) return;
        const paused = l.jobs.filter((j) => j.paused).length;
        this.set({ state: 'active' }, l.jobs.length - paused);
        this.set({ state: 'paused' }, paused);
      },
    });
    const now = this.now;
    new Gauge({
      name: 'tflow_job_next_run_seconds',
      help: "Seconds until the job's next run; negative when overdue (active jobs with a next run)",
      labelNames: ['job', 'pipeline'],
      registers: [registry],
      async collect() {
        const l = await read();
        this.reset();
        for (const job of l?.jobs ?? []) {
          const next = nextRunIn(job.nextRunTimes, l!.at, now());
          if (!job.paused && next !== undefined) this.set({ job: job.id, pipeline: job.pipeline }, next);
        }
      },
    });
    new Gauge({
      name: 'tflow_job_runs_missed',
      help: 'Runs Temporal did not start, by reason (catchup-window, overlap), as the schedule counts them',
      labelNames: ['job', 'reason'],
      registers: [registry],
      async collect() {
        const l = await read();
        this.reset();
        for (const job of l?.jobs ?? []) {
          this.set({ job: job.id, reason: 'catchup-window' }, job.counters.missedCatchupWindow);
          this.set({ job: job.id, reason: 'overlap' }, job.counters.skippedOverlap);
        }
      },
    });
    new Gauge({
      name: 'tflow_jobs_listed_timestamp_seconds',
      help: 'When the jobs were last listed for the job metrics (Unix time)',
      registers: [registry],
      async collect() {
        const l = await read();
        this.reset();
        if (l) this.set(l.at / 1000);
      },
    });
  }

  /** The listing, refreshed first when older than `refreshMs` (one refresh at a time). */
  private async current(): Promise<Listing | undefined> {
    if (this.listing && this.now() - this.listing.at < this.refreshMs) return this.listing;
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async refresh(): Promise<Listing | undefined> {
    const at = this.now();
    try {
      const jobs = await this.lister.listJobs({ ...this.opts.filter, includeForeign: false, details: true });
      this.listing = { jobs: jobs.filter((j) => !j.foreign), at };
    } catch {
      this.errors.inc();
    }
    return this.listing;
  }
}

/**
 * Seconds from `now` to the next run. A time already past when the jobs were listed means the schedule did
 * not fire it: that one is reported (negative, growing). Times that passed since the listing were
 * presumably fired: the first time still ahead is reported, or the last one known.
 */
export function nextRunIn(times: readonly Date[], listedAt: number, now: number): number | undefined {
  if (times.length === 0) return undefined;
  const first = times[0]!.getTime();
  if (first < listedAt) return (first - now) / 1000;
  const ahead = times.find((t) => t.getTime() >= now) ?? times[times.length - 1]!;
  return (ahead.getTime() - now) / 1000;
}

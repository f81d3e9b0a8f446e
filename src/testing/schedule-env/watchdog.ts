import type { JobAlertEvent } from '../../workflows/alert-types';
import type { EnvState } from './env-state';
import type { VirtualJob } from './job-check';

/*
 * A job's watchdog in virtual time (src/workflows/alerts/watchdog-workflow.ts): the dead-man switch raises
 * onSilent once when no run has completed for expectSuccessWithin since the last completed run (or since
 * the job was created), and `recovered` at the next completed run; a removed job is no longer watched.
 * The server's missed counts (overlap, catch-up window) raise onMissed with the occurrence each counted,
 * at the instant the server counts it (the real watchdog reads the counters later, at most every 5
 * minutes, and reports the sum: see docs/testing.md).
 */

const isoMs = (ms: number) => new Date(ms).toISOString();

/** The dead-man switch and missed-count alerts of one job. */
export class Watchdog {
  private lastSuccess: number | undefined;
  private readonly since: number;
  private silent = false;
  private stopped = false;
  private generation = 0;

  constructor(
    private readonly env: EnvState,
    private readonly job: VirtualJob,
    private readonly schedule: () => 'paused' | 'active' | 'deleted',
  ) {
    this.since = env.clock.now();
    this.arm();
  }

  private event(kind: JobAlertEvent['kind'], text: string, extra: Partial<JobAlertEvent>): JobAlertEvent {
    return { kind, jobId: this.job.jobId, text, at: isoMs(this.env.clock.now()), ...extra };
  }

  private arm(): void {
    const within = this.job.expectSuccessWithinMs;
    if (within === undefined || !this.job.alerts.onSilent || this.stopped) return;
    const gen = ++this.generation;
    const from = this.lastSuccess ?? this.since;
    this.env.clock.at(from + within, () => {
      if (gen !== this.generation || this.stopped || this.silent) return;
      this.silent = true;
      const last = isoMs(from);
      this.env.alert(
        'onSilent',
        this.event(
          'silent',
          `job "${this.job.jobId}" has not completed a run since ${last} (expectSuccessWithin ${within} ms)`,
          {
            lastSuccessAt: last,
            expectSuccessWithinMs: within,
            schedule: this.schedule(),
          },
        ),
      );
    });
  }

  /** A run of the job completed at `at`. */
  succeeded(at: number): void {
    if (this.stopped) return;
    if (this.silent && this.job.alerts.onSilent) {
      const last = isoMs(this.lastSuccess ?? this.since);
      this.env.alert(
        'onSilent',
        this.event('recovered', `job "${this.job.jobId}" completed a run again (silent since ${last})`, {
          lastSuccessAt: last,
          expectSuccessWithinMs: this.job.expectSuccessWithinMs!,
        }),
      );
    }
    this.silent = false;
    this.lastSuccess = at;
    this.arm();
  }

  /** The server counted an occurrence as missed (catch-up window) or skipped (overlap). */
  serverMissed(reason: 'overlap' | 'catchup-window', nominal: string): void {
    if (this.stopped || !this.job.alerts.onMissed) return;
    const why = reason === 'overlap' ? 'a run was still open (overlap)' : 'found past the catch-up window';
    this.env.alert(
      'onMissed',
      this.event('missed', `job "${this.job.jobId}" missed 1 run: ${why}`, {
        reason,
        count: 1,
        nominalTimes: [nominal],
      }),
    );
  }

  /** The job was removed: it is no longer watched. */
  stop(): void {
    this.stopped = true;
  }
}

import type { VirtualClock } from './virtual-clock';
import { RunCancelled } from './virtual-clock';

/*
 * One run's hold on virtual time: its sleeps, and their end when the run is cancelled (CANCEL_OTHER, its
 * own timeout: a saga still runs, in sleeps that cannot be cancelled) or terminated (TERMINATE_OTHER:
 * every sleep ends, nothing more of the run happens).
 */

/** What a run needs of the environment besides the clock: when a worker can take its tasks. */
export interface WorkerAvailability {
  /** The first instant at or after `at` when a worker polls the job's task queue (and the server is up). */
  upAt(at: number): number;
  /** The first instant in `[from, to)` when no worker runs (a worker in the middle of an attempt dies). */
  downWithin(from: number, to: number): number | undefined;
}

/** The sleeps of one run, cancellable together. */
export class RunControl {
  /** Set once the run is cancelled or terminated. */
  ended: RunCancelled['how'] | undefined;
  private terminated = false;
  private readonly pending = new Set<(err: RunCancelled) => void>();
  private readonly shielded = new Set<(err: RunCancelled) => void>();

  constructor(
    readonly clock: VirtualClock,
    readonly workers: WorkerAvailability,
  ) {}

  /** Sleeps `ms` of virtual time; rejects with RunCancelled when the run is cancelled (or terminated). */
  sleep(ms: number, opts: { shielded?: boolean } = {}): Promise<void> {
    if (this.terminated || (!opts.shielded && this.ended)) {
      return Promise.reject(new RunCancelled(this.ended ?? 'terminated'));
    }
    const set = opts.shielded ? this.shielded : this.pending;
    return new Promise<void>((resolve, reject) => {
      let done = false;
      const stop = (err: RunCancelled) => {
        if (done) return;
        done = true;
        reject(err);
      };
      set.add(stop);
      this.clock.at(this.clock.now() + Math.max(0, ms), () => {
        set.delete(stop);
        if (done) return;
        done = true;
        resolve();
      });
    });
  }

  /** Waits for a worker (a workflow or activity task): at once when one is up. */
  async task(opts: { shielded?: boolean } = {}): Promise<void> {
    const up = this.workers.upAt(this.clock.now());
    if (up > this.clock.now()) await this.sleep(up - this.clock.now(), opts);
    else if (this.terminated || (!opts.shielded && this.ended)) {
      throw new RunCancelled(this.ended ?? 'terminated');
    }
  }

  /** Cancels the run (its saga may still run) or terminates it (nothing more runs). */
  end(how: RunCancelled['how']): void {
    if (this.terminated) return;
    if (how === 'terminated') this.terminated = true;
    if (this.ended === undefined || how === 'terminated') this.ended = how;
    const err = new RunCancelled(how);
    for (const stop of [...this.pending]) stop(err);
    this.pending.clear();
    if (how === 'terminated') {
      for (const stop of [...this.shielded]) stop(err);
      this.shielded.clear();
    }
  }
}

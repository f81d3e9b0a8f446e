import { serverFires, type ServerFire, type ServerFiresOptions } from '../../schedule/dry-run-times';
import { InvalidWindowError } from '../../schedule/errors';
import type { Trigger } from '../../schedule/trigger-types';

/*
 * The times the server fires one job, read lazily from the project's one model of them (serverFires: the
 * trigger, exclusions, DST policy and its guard's skips, jitter windows, startAt/endAt), span by span as
 * virtual time reaches them.
 */

const DAY_MS = 86_400_000;
/** Longest span read at once. */
const MAX_SPAN_MS = 400 * DAY_MS;

/** The fires of one job, oldest first, read as far as asked. */
export class FireSource {
  private readonly fires: ServerFire[] = [];
  private coveredTo: number;
  private spanMs = DAY_MS;

  constructor(
    private readonly trigger: Trigger,
    private readonly opts: ServerFiresOptions,
    /** Fires strictly after this instant are read. */
    from: number,
  ) {
    this.coveredTo = from;
  }

  /** The fires in `(after, until]`, oldest first. */
  between(after: number, until: number): ServerFire[] {
    // Read ahead a whole span: one read costs about the same whatever it holds.
    if (until > this.coveredTo) this.cover(Math.max(until, this.coveredTo + this.spanMs));
    const out: ServerFire[] = [];
    for (let i = this.firstAfter(after); i < this.fires.length && this.fires[i]!.at <= until; i++) {
      out.push(this.fires[i]!);
    }
    return out;
  }

  /** The fires in `(after, until]` read from scratch (a backfill of a past window reads fires before `from`). */
  pastBetween(after: number, until: number): ServerFire[] {
    const out: ServerFire[] = [];
    let cursor = after;
    while (cursor < until) {
      const end = Math.min(until, cursor + MAX_SPAN_MS);
      const got = this.read(cursor, end);
      out.push(...got.fires);
      cursor = got.to;
    }
    return out;
  }

  /** The latest fire in `(after, until]`, if any. */
  latestBetween(after: number, until: number): ServerFire | undefined {
    const fires = this.between(after, until);
    return fires[fires.length - 1];
  }

  private firstAfter(after: number): number {
    let [lo, hi] = [0, this.fires.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.fires[mid]!.at <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private cover(until: number): void {
    while (this.coveredTo < until) {
      const got = this.read(this.coveredTo, Math.min(until, this.coveredTo + this.spanMs));
      this.fires.push(...got.fires);
      this.coveredTo = got.to;
      // Aim at about 700 fires a read (one serverFires call reads up to 1,000, and costs about the same
      // whatever it holds: it reads the DST changes of a year ahead).
      const span = got.to - got.from;
      const aim = got.fires.length > 0 ? Math.floor((span * 700) / got.fires.length) : span * 4;
      this.spanMs = Math.max(1000, Math.min(MAX_SPAN_MS, aim));
    }
  }

  /** One read of `(after, until]`, narrowed while it holds more fires than one read of the model gives. */
  private read(after: number, until: number): { fires: ServerFire[]; from: number; to: number } {
    let to = until;
    for (;;) {
      try {
        return { fires: serverFires(this.trigger, after, to, this.opts).fires, from: after, to };
      } catch (err) {
        if (!(err instanceof InvalidWindowError) || to - after <= 1000) throw err;
        to = after + Math.floor((to - after) / 2);
        this.spanMs = Math.max(1000, Math.floor(this.spanMs / 2));
      }
    }
  }
}

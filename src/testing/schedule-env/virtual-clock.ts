/*
 * The virtual clock of the schedule test environment: a queue of timed callbacks run in time order (ties in
 * the order they were queued), and a count of the real asynchronous work in flight (the user's step
 * functions), so that time moves on only once everything the last event set off has settled.
 */

interface Timed {
  at: number;
  seq: number;
  fn: () => void;
}

/** Thrown into the sleeps of a run that was cancelled or terminated. */
export class RunCancelled extends Error {
  constructor(readonly how: 'cancelled' | 'terminated' | 'timed-out') {
    super(`the run was ${how}`);
  }
}

/** A min-heap of timed callbacks. */
class TimedQueue {
  private readonly items: Timed[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): Timed | undefined {
    return this.items[0];
  }

  push(t: Timed): void {
    const a = this.items;
    a.push(t);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }

  pop(): Timed | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let m = i;
        if (l < a.length && before(a[l]!, a[m]!)) m = l;
        if (r < a.length && before(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

const before = (x: Timed, y: Timed) => x.at < y.at || (x.at === y.at && x.seq < y.seq);

const macrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Virtual time in Unix ms; it moves only inside {@link VirtualClock.runUntil}. */
export class VirtualClock {
  private readonly queue = new TimedQueue();
  private seq = 0;
  private inflight = 0;
  private idle: (() => void) | undefined;

  constructor(private current: number) {}

  /** Now, in virtual Unix ms. */
  now(): number {
    return this.current;
  }

  /** Runs `fn` at virtual instant `at` (now, if `at` is past). */
  at(at: number, fn: () => void): void {
    this.queue.push({ at: Math.max(at, this.current), seq: this.seq++, fn });
  }

  /** Resolves `ms` of virtual time from now. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.at(this.current + Math.max(0, ms), resolve));
  }

  /** Counts `work` (a step function's promise) as real work in flight until it settles. */
  track<T>(work: Promise<T>): Promise<T> {
    this.inflight++;
    const done = () => {
      if (--this.inflight === 0) this.idle?.();
    };
    return work.finally(done);
  }

  /** Runs every callback due up to `until`, in order, each once the work set off before it has settled. */
  async runUntil(until: number): Promise<void> {
    await this.settle();
    for (let next = this.queue.peek(); next && next.at <= until; next = this.queue.peek()) {
      this.queue.pop();
      this.current = Math.max(this.current, next.at);
      next.fn();
      await this.settle();
    }
    this.current = Math.max(this.current, until);
  }

  /** Waits until no step function is running and every continuation they released has run. */
  private async settle(): Promise<void> {
    for (;;) {
      while (this.inflight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
      this.idle = undefined;
      await macrotask();
      if (this.inflight === 0) return;
    }
  }
}

/*
 * Who holds a slot of a semaphore and who waits, by key: the decisions of semaphore-workflow.ts, pure so
 * that a unit test can drive them. A semaphore of one key or of a job has every run under the key ''
 * (SlotHolder.key absent), which makes it first come first served, as it always was: histories recorded
 * before keys existed replay with the same grants in the same order.
 */
import type { SemaphoreState, SlotHolder, SlotRequest } from './semaphore-defs';

/** `<workflowId>/<runId>`: a run's identity in a semaphore. */
export const slotIdOf = (h: SlotHolder): string => `${h.workflowId}/${h.runId}`;
const keyOf = (h: SlotHolder): string => h.key ?? '';
const holderOf = (r: SlotHolder): SlotHolder => ({
  workflowId: r.workflowId,
  runId: r.runId,
  ...(r.key !== undefined ? { key: r.key } : {}),
});

/** A semaphore's holders and lines. */
export class SlotTable {
  /** Holders in the order they were granted (the oldest first). */
  readonly holders: Map<string, SlotHolder>;
  /** Waiting runs of every key, in the order they asked. */
  waiting: SlotRequest[];
  /** Keys with runs in line, the one served least recently first. */
  private rotation: string[];
  /** Holders asked to cancel that still hold their slot (`cancel-in-progress`). */
  readonly cancelling: Set<string>;

  constructor(state: Pick<SemaphoreState, 'holders' | 'waiting' | 'rotation' | 'cancelling'>) {
    this.holders = new Map(state.holders.map((h) => [slotIdOf(h), h]));
    this.waiting = [...(state.waiting ?? [])];
    const keys = [...new Set(this.waiting.map(keyOf))];
    const kept = (state.rotation ?? []).filter((k) => keys.includes(k));
    this.rotation = [...kept, ...keys.filter((k) => !kept.includes(k))];
    this.cancelling = new Set((state.cancelling ?? []).map(slotIdOf).filter((id) => this.holders.has(id)));
  }

  /** What continue-as-new carries, beside the liveness clock (absent fields: as before keys existed). */
  state(): Pick<SemaphoreState, 'holders' | 'waiting' | 'rotation' | 'cancelling'> {
    const cancelling = [...this.cancelling].map((id) => this.holders.get(id)!);
    return {
      holders: [...this.holders.values()],
      ...(this.waiting.length > 0 ? { waiting: this.waiting } : {}),
      ...(this.rotation.length > 1 ? { rotation: this.rotation } : {}),
      ...(cancelling.length > 0 ? { cancelling } : {}),
    };
  }

  holds(h: SlotHolder): boolean {
    return this.holders.has(slotIdOf(h));
  }

  waits(h: SlotHolder): boolean {
    return this.waiting.some((w) => slotIdOf(w) === slotIdOf(h));
  }

  get busy(): boolean {
    return this.holders.size > 0 || this.waiting.length > 0;
  }

  /** Every run the semaphore knows of, holders first: what a liveness check asks about. */
  known(): SlotHolder[] {
    return [...this.holders.values(), ...this.waiting];
  }

  private heldBy(key: string): number {
    let n = 0;
    for (const h of this.holders.values()) if (keyOf(h) === key) n++;
    return n;
  }

  private hasRoom(req: SlotRequest): boolean {
    return this.heldBy(keyOf(req)) < req.max && (req.total === undefined || this.holders.size < req.total);
  }

  /** True when runs of `req`'s key wait in line. */
  hasLine(req: SlotHolder): boolean {
    return this.waiting.some((w) => keyOf(w) === keyOf(req));
  }

  /** True when `req` can have a slot now: room for its key and in the total, and nobody of its key in line. */
  grantableNow(req: SlotRequest): boolean {
    return !this.hasLine(req) && this.hasRoom(req);
  }

  grant(req: SlotRequest): void {
    this.holders.set(slotIdOf(req), holderOf(req));
  }

  enqueue(req: SlotRequest): void {
    if (this.waits(req)) return;
    this.waiting.push(req);
    if (!this.rotation.includes(keyOf(req))) this.rotation.push(keyOf(req));
  }

  /** Forgets these runs, holders or waiters (a release, or runs found dead). */
  remove(ids: ReadonlySet<string>): void {
    for (const id of ids) {
      this.holders.delete(id);
      this.cancelling.delete(id);
    }
    this.waiting = this.waiting.filter((w) => !ids.has(slotIdOf(w)));
    this.rotation = this.rotation.filter((k) => this.waiting.some((w) => keyOf(w) === k));
  }

  /**
   * Grants the waiting runs that have room now, round-robin: each time, the first key in the rotation
   * whose first run in line fits gets its slot and goes to the back of the rotation. Returns them.
   */
  grantWaiting(): SlotHolder[] {
    const granted: SlotHolder[] = [];
    for (;;) {
      const at = this.rotation.findIndex((k) => this.hasRoom(this.waiting.find((w) => keyOf(w) === k)!));
      if (at < 0) return granted;
      const key = this.rotation[at]!;
      const next = this.waiting.findIndex((w) => keyOf(w) === key);
      const [req] = this.waiting.splice(next, 1);
      this.grant(req!);
      granted.push(holderOf(req!));
      this.rotation.splice(at, 1);
      if (this.waiting.some((w) => keyOf(w) === key)) this.rotation.push(key);
    }
  }

  /**
   * `cancel-in-progress` after `req` queued: the runs of its key beyond the newest `req.max` are to be
   * cancelled, the oldest first (holders not yet asked, then runs in line, which leave the line now).
   * Holders keep their slot until they give it back, so no limit is ever passed.
   */
  trimToNewest(req: SlotRequest): { cancelHolders: SlotHolder[]; dropped: SlotRequest[] } {
    const key = keyOf(req);
    const live = [...this.holders.values()].filter(
      (h) => keyOf(h) === key && !this.cancelling.has(slotIdOf(h)),
    );
    const line = this.waiting.filter((w) => keyOf(w) === key);
    let excess = live.length + line.length - req.max;
    const cancelHolders = live.slice(0, Math.max(0, excess));
    for (const h of cancelHolders) this.cancelling.add(slotIdOf(h));
    excess -= cancelHolders.length;
    const dropped = line.slice(0, Math.max(0, excess));
    if (dropped.length > 0) this.remove(new Set(dropped.map(slotIdOf)));
    return { cancelHolders, dropped };
  }
}

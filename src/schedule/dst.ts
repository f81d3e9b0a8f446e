import type { FireTimes } from './fire-times';
import { wallOf, type WallTime, type ZoneClock } from './zone-clock';

/*
 * DST warnings: for each clock change in a window, which runs of a trigger Temporal skips, shifts, runs
 * twice, or runs at a time the trigger does not name. Gaps are found by matching the trigger's fields
 * against every wall second that does not exist; repeated hours by running the server's algorithm
 * (FireTimes) across the change and looking at what it fires. Intervals are counted in UTC and never warn.
 */

/** One date on which DST changes what a job does. */
export interface DstWarning {
  /** Local date of the clock change, `YYYY-MM-DD`. */
  date: string;
  /** The instant of the clock change (UTC ISO string). */
  transition: string;
  /**
   * `skipped`: a named time does not exist and Temporal does not run it; `shifted`: it does not exist and
   * Temporal runs it later in the same hour; `twice`: a named time happens twice and Temporal runs both;
   * `extra`: Temporal also runs the job at a time the trigger does not name (its repeated-hour handling).
   */
  kind: 'skipped' | 'shifted' | 'twice' | 'extra';
  /**
   * The local times concerned, as ISO 8601 local date-times: with their offset when they exist
   * (`2026-11-01T01:30:00-04:00`), without one when they do not (`2027-03-28T02:30:00`, skipped or shifted
   * in a gap). For `twice`, both instants are listed.
   */
  localTimes: string[];
  /** A sentence for humans. */
  message: string;
}

interface Transition {
  at: number;
  before: number;
  after: number;
}

const DAY = 86_400;
/** Fire times examined around one repeated hour; a job firing every second gives 4 x 3600 at most here. */
const MAX_FIRES_PER_CHANGE = 20_000;

/** Clock changes (offset changes) in `(from, to]`, to the second. */
export function findTransitions(clock: ZoneClock, from: number, to: number): Transition[] {
  const out: Transition[] = [];
  let t = from;
  let off = clock.offset(t);
  while (t < to) {
    const u = Math.min(t + DAY, to);
    const offU = clock.offset(u);
    if (offU !== off) {
      let [lo, hi] = [t, u];
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (clock.offset(mid) === off) lo = mid;
        else hi = mid;
      }
      out.push({ at: hi, before: off, after: offU });
    }
    [t, off] = [u, offU];
  }
  return out;
}

const pad = (n: number) => String(n).padStart(2, '0');
const dateOf = (w: WallTime) => `${w.y}-${pad(w.mo)}-${pad(w.d)}`;
const hm = (h: number, mi: number) => `${pad(h)}:${pad(mi)}`;
function timeOf(w: Pick<WallTime, 'h' | 'mi' | 's'>, withSeconds: boolean): string {
  return withSeconds ? `${hm(w.h, w.mi)}:${pad(w.s)}` : hm(w.h, w.mi);
}
/** `2027-03-28T02:30:00`, plus the offset (in seconds) when given. */
function localIso(w: WallTime, offset?: number): string {
  const base = `${dateOf(w)}T${timeOf(w, true)}`;
  return offset === undefined ? base : `${base}${offsetOf(offset).replace(' ', '')}`;
}

function offsetOf(sec: number): string {
  const a = Math.abs(sec);
  return `${sec < 0 ? '-' : '+'}${pad(Math.floor(a / 3600))}:${pad(Math.floor((a % 3600) / 60))}`;
}

/** "clocks go 02:00 -> 03:00": the wall clock just before the change, and just after. */
function changeText(clock: ZoneClock, at: number): string {
  const b = clock.wall(at - 1);
  const t = new Date(Date.UTC(2000, 0, 1, b.h, b.mi, b.s) + 1000);
  return `clocks go ${hm(t.getUTCHours(), t.getUTCMinutes())} -> ${timeOf(clock.wall(at), false)}`;
}

/** "02:30", "02:00 and 02:30", or "02:00 to 02:59 (60 runs)". */
function listTimes(times: string[]): string {
  if (times.length <= 4) {
    return times.length === 1 ? times[0]! : `${times.slice(0, -1).join(', ')} and ${times[times.length - 1]}`;
  }
  return `${times[0]} to ${times[times.length - 1]} (${times.length} runs)`;
}

function gapWarnings(fire: FireTimes, tr: Transition): DstWarning[] {
  const clock = fire.clock;
  const start = clock.wall(tr.at - 1);
  const startWall = Date.UTC(start.y, start.mo - 1, start.d, start.h, start.mi, start.s) / 1000 + 1;
  const length = tr.after - tr.before;
  const skipped: WallTime[] = [];
  const shifted: [WallTime, WallTime][] = [];
  for (let i = 0; i < length; i++) {
    const w = wallOf(startWall + i);
    if (!fire.namesWall(w.y, w.mo, w.d, w.h, w.mi, w.s, w.dow)) continue;
    const moved = clock.wall(clock.date(w.y, w.mo, w.d, w.h, w.mi, w.s));
    if (moved.h !== w.h) skipped.push(w);
    else shifted.push([w, moved]);
  }
  const seconds = [...skipped, ...shifted.map(([w]) => w)].some((w) => w.s !== 0);
  const change = changeText(clock, tr.at);
  const base = { transition: new Date(tr.at * 1000).toISOString().replace('.000Z', 'Z') };
  const out: DstWarning[] = [];
  if (skipped.length > 0) {
    const times = skipped.map((w) => timeOf(w, seconds));
    const one = times.length === 1;
    out.push({
      ...base,
      date: dateOf(skipped[0]!),
      kind: 'skipped',
      localTimes: skipped.map((w) => localIso(w)),
      message: `${dateOf(skipped[0]!)} ${listTimes(times)} ${clock.name} ${one ? 'does' : 'do'} not exist (${change}): Temporal skips ${one ? 'this run' : 'these runs'}`,
    });
  }
  for (const [w, moved] of shifted) {
    out.push({
      ...base,
      date: dateOf(w),
      kind: 'shifted',
      localTimes: [localIso(w)],
      message:
        `${dateOf(w)} ${timeOf(w, seconds)} ${clock.name} does not exist (${change}): Temporal runs it at ${timeOf(moved, seconds)} instead` +
        (fire.named(clock.date(w.y, w.mo, w.d, w.h, w.mi, w.s))
          ? `, merged with the ${timeOf(moved, seconds)} run (one run)`
          : ''),
    });
  }
  return out;
}

/** The wall time at an instant near a change, knowing the offsets on both sides (no zone lookups). */
function wallNear(tr: Transition, sec: number): WallTime {
  return wallOf(sec + (sec < tr.at ? tr.before : tr.after));
}

function repeatWarnings(fire: FireTimes, tr: Transition): DstWarning[] {
  const clock = fire.clock;
  // The repeated stretch, plus an hour either side: Temporal's handling reaches that far.
  const [from, to] = [tr.at - (tr.before - tr.after) - 3600, tr.at + (tr.before - tr.after) + 3600];
  const fires = new Set<number>();
  for (let t = fire.next(from - 1); t !== undefined && t < to && fires.size < MAX_FIRES_PER_CHANGE;) {
    fires.add(t);
    t = fire.next(t);
  }
  const named: number[] = [];
  for (let sec = from; sec < to; sec++) {
    const w = wallNear(tr, sec);
    if (fire.namesWall(w.y, w.mo, w.d, w.h, w.mi, w.s, w.dow)) named.push(sec);
  }
  const seconds = [...fires, ...named].some((f) => wallNear(tr, f).s !== 0);
  const label = (sec: number) => timeOf(wallNear(tr, sec), seconds);
  const firedLabels = new Map<string, number[]>();
  for (const f of fires) firedLabels.set(label(f), [...(firedLabels.get(label(f)) ?? []), f]);
  const twice = [...firedLabels.entries()].filter(([, at]) => at.length > 1);
  const extra = [...fires].filter((f) => !fire.named(f));
  // A named time that never fires, not even at its other copy in the repeated hour.
  const missed = named.filter((sec) => !fires.has(sec) && !firedLabels.has(label(sec)));

  const date = dateOf(clock.wall(tr.at));
  const change = changeText(clock, tr.at);
  const base = { date, transition: new Date(tr.at * 1000).toISOString().replace('.000Z', 'Z') };
  const at = (sec: number) => `${label(sec)} ${offsetOf(clock.offset(sec))}`;
  const iso = (sec: number) => localIso(wallNear(tr, sec), clock.offset(sec));
  const out: DstWarning[] = [];
  if (twice.length > 0) {
    const times = twice.map(([l]) => l);
    const [, first] = twice[0]!;
    out.push({
      ...base,
      kind: 'twice',
      localTimes: twice.flatMap(([, secs]) => secs.map(iso)),
      message:
        `${date} ${listTimes(times)} ${clock.name} ${times.length === 1 ? 'happens' : 'happen'} twice (${change}): ` +
        `Temporal runs the job both times (e.g. ${at(first[0]!)} and ${at(first[1]!)})`,
    });
  }
  if (extra.length > 0) {
    const times = extra.map(label);
    out.push({
      ...base,
      kind: 'extra',
      localTimes: extra.map(iso),
      message:
        `${date} ${clock.name} (${change}): Temporal also runs the job at ${listTimes(times)} ${offsetOf(clock.offset(extra[0]!))}, ` +
        'which the trigger does not name: its repeated-hour handling runs the hour before the change again, one hour later',
    });
  }
  if (missed.length > 0) {
    const times = missed.map(at);
    out.push({
      ...base,
      kind: 'skipped',
      localTimes: missed.map(iso),
      message:
        `${date} ${clock.name} (${change}): Temporal skips the run${times.length === 1 ? '' : 's'} at ${listTimes(times)}` +
        ': its repeated-hour handling jumps ahead',
    });
  }
  return out;
}

/** Every DST warning for a trigger's fire times in `(from, to]` (Unix seconds). */
export function dstWarnings(fire: FireTimes, from: number, to: number): DstWarning[] {
  if (!fire.hasCalendars) return [];
  return findTransitions(fire.clock, from, to).flatMap((tr) =>
    tr.after > tr.before ? gapWarnings(fire, tr) : repeatWarnings(fire, tr),
  );
}

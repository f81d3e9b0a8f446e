import type { FireTimes } from './fire-times';
import { wallOf, type WallTime } from './zone-clock';

/*
 * What the trigger names around one clock change, against what FireTimes (the server's algorithm) fires
 * there. Warnings are derived from this difference only, so any effect the fire times model (gaps,
 * replayed hours, hours lost to a gap, weekdays read at a midnight that does not exist) is reported.
 */

/** A clock change: its instant and the UTC offsets (seconds) before and after it. */
export interface Transition {
  at: number;
  before: number;
  after: number;
}

/** How the named times around one change differ from the fired ones. Walls are local seconds (see wallOf). */
export interface Comparison {
  /** Named walls in the gap that Temporal does not run. */
  gapSkipped: number[];
  /** Named walls in the gap that Temporal runs later, with the instant it runs them at. */
  shifted: [wall: number, fire: number][];
  /** Instants of named walls that exist but are not run, on a day whose weekday Temporal reads right. */
  skipped: number[];
  /** Instants of named walls not run on a day whose weekday Temporal misreads (midnight is in the change). */
  skippedWeekday: number[];
  /** Named walls that exist twice and run at both instants. */
  twice: [wall: number, first: number, second: number][];
  /** Instants Temporal runs at that no named wall accounts for. */
  extra: number[];
  /** The cap on named times and fires when it was reached (the rest of the span was not checked), else 0. */
  capped: number;
}

const HOUR = 3600;
const DAY = 86_400;
/**
 * Named times, and fire times, examined around one change. A job firing every second has about 4 x 3600
 * around a one-hour change; a whole day (weekday calendars where midnight is in the change) is capped.
 */
export const MAX_EXAMINED = 20_000;
/**
 * The cap when whole days are compared (weekday calendars in zones whose midnight can be in a change): a
 * skipped or added day is plain from its first times, and 7-field crons must stay fast.
 */
export const MAX_EXAMINED_WHOLE_DAYS = 2_000;

/** Whether Temporal reads this date's weekday wrong: it reads it at local midnight as Go's time.Date resolves it. */
export function misreadsWeekday(fire: FireTimes, w: WallTime): boolean {
  const clock = fire.clock;
  return clock.wall(clock.date(w.y, w.mo, w.d, 0, 0, 0)).dow !== w.dow;
}

/**
 * The span compared, in instants: an hour either side of a gap (a gap ends the hour it falls in, nothing
 * more), the repeated stretch plus an hour either side of a repeat (the replay and the late start reach that
 * far), and whole days whose weekday Temporal misreads (it then skips or adds the whole day).
 */
export function span(fire: FireTimes, tr: Transition): { i0: number; i1: number; weekdayDays: Set<number> } {
  let [i0, i1] = [tr.at - (tr.before - tr.after) - HOUR, tr.at + (tr.before - tr.after) + HOUR];
  if (tr.after > tr.before) {
    // The hours a gap touches: the one it starts in (Chatham 02:45) to the end of the one it ends in.
    const start = tr.at + tr.before;
    const end = tr.at + tr.after;
    i0 = tr.at - (((start % HOUR) + HOUR) % HOUR);
    i1 = tr.at + HOUR - (((end % HOUR) + HOUR) % HOUR);
  }
  const weekdayDays = new Set<number>();
  if (fire.restrictsWeekdays) {
    const [l0, l1] = [i0 + tr.before, i1 + tr.after];
    for (let day = l0 - (((l0 % DAY) + DAY) % DAY); day < l1; day += DAY) {
      if (!misreadsWeekday(fire, wallOf(day))) continue;
      weekdayDays.add(day);
      i0 = Math.min(i0, day - Math.max(tr.before, tr.after));
      i1 = Math.max(i1, day + DAY - Math.min(tr.before, tr.after));
    }
  }
  return { i0, i1, weekdayDays };
}

/** Named walls (local seconds, increasing) whose instants fall in `[i0, i1)` or in the gap; capped. */
export function namedWalls(fire: FireTimes, tr: Transition, i0: number, i1: number, limit: number): number[] {
  const [l0, l1] = [i0 + tr.before, i1 + tr.after];
  const out: number[] = [];
  for (let day = l0 - (((l0 % DAY) + DAY) % DAY); day < l1 && out.length < limit; day += DAY) {
    const w = wallOf(day);
    const secs = fire.namedOn(
      w.y,
      w.mo,
      w.d,
      w.dow,
      Math.max(l0 - day, 0),
      Math.min(l1 - day, DAY),
      limit - out.length,
    );
    for (const s of secs) out.push(day + s);
  }
  return out;
}

/** The instants a wall exists at near the change: none in a gap, two in a repeat. */
export function instantsOf(tr: Transition, wall: number): number[] {
  return [wall - tr.before, wall - tr.after].filter((t, i) => (i === 0 ? t < tr.at : t >= tr.at));
}

/** Compares what the trigger names around a change with what Temporal fires there. */
export function compareAround(fire: FireTimes, tr: Transition): Comparison {
  const clock = fire.clock;
  const { i0, i1, weekdayDays } = span(fire, tr);
  const limit = weekdayDays.size > 0 ? MAX_EXAMINED_WHOLE_DAYS : MAX_EXAMINED;
  let named = namedWalls(fire, tr, i0, i1, limit);
  const fires: number[] = [];
  for (let t = fire.next(i0 - 1); t !== undefined && t < i1 && fires.length < limit; t = fire.next(t)) {
    fires.push(t);
  }
  // When capped, compare only up to the earlier of the last named time and the last fire examined.
  let end = i1;
  const capped = named.length >= limit || fires.length >= limit ? limit : 0;
  if (capped) {
    const lastNamed =
      named.length >= limit ? Math.max(...instantsOf(tr, named[named.length - 1]!), tr.at) : i1;
    end = Math.min(lastNamed, fires.length >= limit ? fires[fires.length - 1]! : i1);
    named = named.filter((w) => Math.max(...instantsOf(tr, w), tr.at) <= end);
  }
  const fired = new Set(fires.filter((t) => t <= end));
  const out: Comparison = {
    gapSkipped: [],
    shifted: [],
    skipped: [],
    skippedWeekday: [],
    twice: [],
    extra: [],
    capped,
  };
  const accounted = new Set<number>();
  const dayOf = (wall: number) => wall - (((wall % DAY) + DAY) % DAY);
  for (const wall of named) {
    const at = instantsOf(tr, wall);
    if (at.length === 0) {
      const w: WallTime = wallOf(wall);
      const t = clock.date(w.y, w.mo, w.d, w.h, w.mi, w.s);
      if (fired.has(t) && clock.wall(t).h === w.h) {
        out.shifted.push([wall, t]);
        accounted.add(t);
      } else out.gapSkipped.push(wall);
      continue;
    }
    const hit = at.filter((t) => fired.has(t));
    hit.forEach((t) => accounted.add(t));
    if (at.length === 2 && hit.length === 2) out.twice.push([wall, at[0]!, at[1]!]);
    else if (hit.length === 0) (weekdayDays.has(dayOf(wall)) ? out.skippedWeekday : out.skipped).push(...at);
  }
  out.skipped.sort((a, b) => a - b);
  out.skippedWeekday.sort((a, b) => a - b);
  out.extra = [...fired].filter((t) => !accounted.has(t) && !fire.named(t));
  return out;
}

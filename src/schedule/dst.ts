import { compareAround, misreadsWeekday, type Transition } from './dst-compare';
import type { FireTimes } from './fire-times';
import { wallOf, type WallTime, type ZoneClock } from './zone-clock';

/*
 * DST warnings: for each clock change in a window, which runs of a trigger Temporal skips, shifts, runs
 * twice, or runs at a time the trigger does not name. They are derived from the fire times themselves
 * (dst-compare.ts): the wall times the trigger names around the change against what the server's
 * algorithm (FireTimes) fires there. This file words the difference. Intervals are counted in UTC and
 * never warn.
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
   * With a DST policy (see dst-policy.ts): `skipped`/`shifted` for a gap, `once`/`twice` for a repeat, as
   * the policy decided, and `corrected` when the policy only undid Temporal's extra or dropped runs.
   */
  kind: 'skipped' | 'shifted' | 'twice' | 'extra' | 'once' | 'corrected';
  /**
   * The local times concerned, as ISO 8601 local date-times: with their offset when they exist
   * (`2026-11-01T01:30:00-04:00`), without one when they do not (`2027-03-28T02:30:00`, skipped or shifted
   * in a gap). For `twice`, both instants are listed.
   */
  localTimes: string[];
  /** A sentence for humans. */
  message: string;
}

const DAY = 86_400;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

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
export function changeText(clock: ZoneClock, at: number): string {
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

type Kind = DstWarning['kind'];
const KIND_ORDER: Kind[] = ['twice', 'extra', 'skipped', 'shifted'];

/** Words the comparison of one change: one warning per date and kind (one per time for `shifted`). */
function warningsFor(fire: FireTimes, tr: Transition): DstWarning[] {
  const clock = fire.clock;
  const cmp = compareAround(fire, tr);
  const fallBack = tr.after < tr.before;
  const instantsUsed = [
    ...cmp.skipped,
    ...cmp.skippedWeekday,
    ...cmp.extra,
    ...cmp.twice.flatMap(([, a, b]) => [a, b]),
  ];
  const wallsUsed = [...cmp.gapSkipped, ...cmp.shifted.flatMap(([w, t]) => [w, t + tr.after])];
  // Offsets from the change itself: no zone lookup per time (a whole day of times can be listed).
  const offsetAt = (sec: number) => (sec < tr.at ? tr.before : tr.after);
  const seconds = [...wallsUsed, ...instantsUsed.map((t) => t + offsetAt(t))].some((l) => l % 60 !== 0);
  const wallAt = (sec: number) => wallOf(sec + offsetAt(sec));
  const label = (sec: number) => timeOf(wallAt(sec), seconds);
  const at = (sec: number) => `${label(sec)} ${offsetOf(offsetAt(sec))}`;
  const iso = (sec: number) => localIso(wallAt(sec), offsetAt(sec));
  const change = changeText(clock, tr.at);
  const transition = new Date(tr.at * 1000).toISOString().replace('.000Z', 'Z');
  const cap = cmp.capped
    ? ` (only the first ${cmp.capped.toLocaleString('en-US')} named times around this change were checked)`
    : '';
  const out: DstWarning[] = [];
  const push = (date: string, kind: Kind, localTimes: string[], message: string) =>
    out.push({ date, transition, kind, localTimes, message: message + cap });
  const byDate = <T>(items: T[], date: (item: T) => string) => {
    const groups = new Map<string, T[]>();
    for (const item of items) groups.set(date(item), [...(groups.get(date(item)) ?? []), item]);
    return groups;
  };
  const midnight = (date: string) => {
    const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
    const read = clock.wall(clock.date(y, mo, d, 0, 0, 0)).dow;
    return (
      `: Temporal reads the day of the week at local midnight, which ${fallBack ? 'happens twice' : 'does not exist'} ` +
      `that day, and takes ${date} for a ${WEEKDAYS[read]}`
    );
  };

  for (const [date, twice] of byDate(cmp.twice, ([, a]) => dateOf(wallAt(a)))) {
    const times = twice.map(([, a]) => label(a));
    const [, a, b] = twice[0]!;
    push(
      date,
      'twice',
      twice.flatMap(([, x, y]) => [iso(x), iso(y)]),
      `${date} ${listTimes(times)} ${clock.name} ${times.length === 1 ? 'happens' : 'happen'} twice (${change}): ` +
        `Temporal runs the job both times (e.g. ${at(a)} and ${at(b)})`,
    );
  }
  for (const [date, extra] of byDate(cmp.extra, (t) => dateOf(wallAt(t)))) {
    const weekday = misreadsWeekdayOn(fire, date);
    const reason = weekday
      ? midnight(date)
      : fallBack
        ? ': its repeated-hour handling runs the hour before the change again, one hour later'
        : '';
    push(
      date,
      'extra',
      extra.map(iso),
      `${date} ${clock.name} (${change}): Temporal also runs the job at ${listTimes(extra.map(label))} ${offsetOf(offsetAt(extra[0]!))}, ` +
        `which the trigger does not name${reason}`,
    );
  }
  const dates = new Set([
    ...cmp.gapSkipped.map((w) => dateOf(wallOf(w))),
    ...[...cmp.skipped, ...cmp.skippedWeekday].map((t) => dateOf(wallAt(t))),
  ]);
  for (const date of [...dates].sort()) {
    const parts: string[] = [];
    const localTimes: string[] = [];
    const gap = cmp.gapSkipped.filter((w) => dateOf(wallOf(w)) === date);
    if (gap.length > 0) {
      const one = gap.length === 1;
      parts.push(
        `${date} ${listTimes(gap.map((w) => timeOf(wallOf(w), seconds)))} ${clock.name} ${one ? 'does' : 'do'} not exist (${change}): Temporal skips ${one ? 'this run' : 'these runs'}`,
      );
      localTimes.push(...gap.map((w) => localIso(wallOf(w))));
    }
    const skipped = cmp.skipped.filter((t) => dateOf(wallAt(t)) === date);
    if (skipped.length > 0 && fallBack) {
      parts.push(
        `${date} ${clock.name} (${change}): Temporal skips the run${skipped.length === 1 ? '' : 's'} at ${listTimes(skipped.map(at))}` +
          ': its repeated-hour handling jumps ahead',
      );
    } else if (skipped.length > 0) {
      parts.push(existsButSkipped(date, skipped.map(label), clock.name, change, ''));
    }
    localTimes.push(...skipped.map(iso));
    const weekday = cmp.skippedWeekday.filter((t) => dateOf(wallAt(t)) === date);
    if (weekday.length > 0) {
      parts.push(existsButSkipped(date, weekday.map(label), clock.name, change, midnight(date)));
      localTimes.push(...weekday.map(iso));
    }
    push(date, 'skipped', localTimes, parts.join('; '));
  }
  for (const [w, t] of cmp.shifted) {
    const wall = wallOf(w);
    const moved = wallAt(t);
    push(
      dateOf(wall),
      'shifted',
      [localIso(wall)],
      `${dateOf(wall)} ${timeOf(wall, seconds)} ${clock.name} does not exist (${change}): Temporal runs it at ${timeOf(moved, seconds)} instead` +
        (fire.named(t) ? `, merged with the ${timeOf(moved, seconds)} run (one run)` : ''),
    );
  }
  return out.sort((a, b) =>
    a.date === b.date ? KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) : a.date < b.date ? -1 : 1,
  );
}

/** "2027-09-26 03:48 Pacific/Chatham exists but Temporal skips it on the day clocks change (...)". */
function existsButSkipped(
  date: string,
  times: string[],
  zone: string,
  change: string,
  reason: string,
): string {
  const one = times.length === 1;
  return (
    `${date} ${listTimes(times)} ${zone} ${one ? 'exists' : 'exist'} but Temporal skips ${one ? 'it' : 'them'} ` +
    `on the day clocks change (${change})${reason}`
  );
}

function misreadsWeekdayOn(fire: FireTimes, date: string): boolean {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  return misreadsWeekday(fire, wallOf(Date.UTC(y, mo - 1, d) / 1000));
}

/** Every DST warning for a trigger's fire times in `(from, to]` (Unix seconds). */
export function dstWarnings(fire: FireTimes, from: number, to: number): DstWarning[] {
  if (!fire.hasCalendars) return [];
  return findTransitions(fire.clock, from, to).flatMap((tr) => warningsFor(fire, tr));
}

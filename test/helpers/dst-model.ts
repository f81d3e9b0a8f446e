import fc from 'fast-check';
import { DateTime, IANAZone } from 'luxon';

/*
 * An independent model of the DST policy, from first principles, for the tests: it does not use
 * src/schedule. A job names wall times (minutes x hours, on some weekdays); each named wall time on each
 * local date is resolved to the instants at which the zone's clock shows it (found by trying every
 * offset the zone has around that date), and the policy decides: one instant runs; none (a gap) runs at
 * the first instant after the gap (`shift`) or not at all (`skip`); two run at the first (`once`) or both
 * (`twice`).
 */

/** 22 zones: DST both hemispheres, 30- and 45-minute offsets and changes, midnight changes, negative DST, a 2-hour change, none. */
export const DST_ZONES = [
  'Europe/Paris',
  'America/New_York',
  'America/Santiago',
  'Pacific/Chatham',
  'Australia/Lord_Howe',
  'Antarctica/Troll',
  'Asia/Tokyo',
  'Europe/London',
  'Europe/Dublin',
  'America/Los_Angeles',
  'America/Havana',
  'America/St_Johns',
  'Australia/Sydney',
  'Pacific/Auckland',
  'Africa/Casablanca',
  'Africa/Cairo',
  'Asia/Beirut',
  'Atlantic/Azores',
  'America/Asuncion',
  'Pacific/Norfolk',
  'Asia/Kolkata',
  'America/Sao_Paulo',
] as const;

/** What a generated job names: minutes and hours of the day, and optionally weekdays (0 = Sunday). */
export interface NamedTimes {
  minutes: number[];
  hours: number[];
  weekdays?: number[];
}

export interface ModelPolicy {
  gap: 'skip' | 'shift';
  overlap: 'once' | 'twice';
}

const MIN = 60;
const DAY = 86_400;

const nearCache = new Map<string, number[]>();

/** The zone's offsets (seconds) in use within about two days of an instant. */
function offsetsNear(zone: IANAZone, sec: number): number[] {
  const day = Math.floor(sec / DAY) * DAY;
  const key = `${zone.name} ${day}`;
  let out = nearCache.get(key);
  if (!out) {
    const set = new Set<number>();
    for (let t = day - 2 * DAY; t <= day + 3 * DAY; t += 1800) set.add(zone.offset(t * 1000) * MIN);
    out = [...set];
    nearCache.set(key, out);
  }
  return out;
}

/** The instants (Unix seconds) at which the zone's clock shows this wall time (given as seconds read as UTC). */
export function instantsShowing(zone: IANAZone, wall: number): number[] {
  return offsetsNear(zone, wall)
    .map((o) => wall - o)
    .filter((t) => zone.offset(t * 1000) * MIN === wall - t)
    .sort((a, b) => a - b);
}

/** The first instant after the gap a wall time falls in: where the offset changes, by bisection. */
function endOfGap(zone: IANAZone, wall: number): number {
  const offs = offsetsNear(zone, wall);
  let [lo, hi] = [wall - Math.max(...offs), wall - Math.min(...offs)];
  const before = zone.offset(lo * 1000);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (zone.offset(mid * 1000) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The instants in `(from, to]` a job naming these times runs at under the policy. */
export function modelTimes(
  named: NamedTimes,
  zoneName: string,
  policy: ModelPolicy,
  from: number,
  to: number,
): number[] {
  const zone = IANAZone.create(zoneName);
  const out = new Set<number>();
  let day = DateTime.fromSeconds(from, { zone: zoneName }).startOf('day').minus({ days: 1 });
  const last = DateTime.fromSeconds(to, { zone: zoneName }).plus({ days: 1 });
  for (; day <= last; day = day.plus({ days: 1 })) {
    const date = Date.UTC(day.year, day.month - 1, day.day) / 1000;
    if (named.weekdays && !named.weekdays.includes(new Date(date * 1000).getUTCDay())) continue;
    for (const h of named.hours) {
      for (const m of named.minutes) {
        const wall = date + h * 3600 + m * MIN;
        const at = instantsShowing(zone, wall);
        if (at.length === 0 && policy.gap === 'shift') out.add(endOfGap(zone, wall));
        else if (at.length === 1 || policy.overlap === 'once') at.slice(0, 1).forEach((t) => out.add(t));
        else at.forEach((t) => out.add(t));
      }
    }
  }
  return [...out].filter((t) => t > from && t <= to).sort((a, b) => a - b);
}

/** The clock changes of a zone in `(from, to]` (instants), by stepping a day and bisecting. */
export function clockChanges(zoneName: string, from: number, to: number): number[] {
  const zone = IANAZone.create(zoneName);
  const off = (t: number) => zone.offset(t * 1000);
  const out: number[] = [];
  for (let t = from; t < to; t += DAY) {
    const u = Math.min(t + DAY, to);
    if (off(t) === off(u)) continue;
    let [lo, hi] = [t, u];
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (off(mid) === off(t)) lo = mid;
      else hi = mid;
    }
    out.push(hi);
  }
  return out;
}

/** The job as a 5-field cron string. */
export function cronOf(n: NamedTimes): string {
  return `${n.minutes.join(',')} ${n.hours.length === 24 ? '*' : n.hours.join(',')} * * ${n.weekdays ? n.weekdays.join(',') : '*'}`;
}

/** The job as Temporal-style calendar fields. */
export function calendarOf(n: NamedTimes) {
  return {
    minute: n.minutes,
    hour: n.hours,
    ...(n.weekdays ? { dayOfWeek: n.weekdays } : {}),
  };
}

const sortedSet = (arb: fc.Arbitrary<number>, max: number) =>
  fc.uniqueArray(arb, { minLength: 1, maxLength: max }).map((a) => [...a].sort((x, y) => x - y));

/** Generated named times, biased to the hours clocks change in (0-4) and to quarter hours. */
export const namedTimesArb: fc.Arbitrary<NamedTimes> = fc.record(
  {
    minutes: fc.oneof(
      sortedSet(fc.integer({ min: 0, max: 59 }), 3),
      fc.constantFrom<number[]>([0, 15, 30, 45], [0, 30], [0, 20, 40], [30], [45], [0]),
    ),
    hours: fc.oneof(
      sortedSet(fc.integer({ min: 0, max: 4 }), 3),
      sortedSet(fc.integer({ min: 0, max: 23 }), 2),
      fc.constant<number[]>([...Array(24).keys()]),
    ),
    weekdays: sortedSet(fc.integer({ min: 0, max: 6 }), 3),
  },
  { requiredKeys: ['minutes', 'hours'] },
);

export const modelPolicyArb: fc.Arbitrary<ModelPolicy> = fc.record({
  gap: fc.constantFrom('skip' as const, 'shift' as const),
  overlap: fc.constantFrom('once' as const, 'twice' as const),
});

import type { StructuredCalendar } from './cron-fields';
import {
  calendarMatcher,
  calendarMatches,
  nextCalendarTime,
  wallMatches,
  type CalendarMatcher,
} from './calendar-next';
import { ZoneClock } from './zone-clock';

/**
 * When a trigger fires, in the terms the Temporal server computes with: calendars in a zone, intervals
 * counted from the Unix epoch plus an offset (in seconds, independent of any zone), or one instant.
 */
export interface FireSpec {
  readonly timezone: string;
  readonly calendars: readonly StructuredCalendar[];
  readonly intervals: readonly { readonly everySec: number; readonly offsetSec: number }[];
  /** One-off jobs: the instant (Unix seconds) of the single run. */
  readonly atSec?: number;
  /** Temporal's `skip`: a time some of these calendars match (wall time, real weekday) is not fired. */
  readonly skip?: readonly StructuredCalendar[];
}

/** Most excluded times in a row `next` steps over before giving up (an exclusion that covers everything). */
const MAX_SKIPPED_IN_A_ROW = 200_000;

/** Computes successive fire times of a {@link FireSpec} the way the server's `GetNextTime` does. */
export class FireTimes {
  private readonly calendars: CalendarMatcher[];
  private readonly skip: CalendarMatcher[];
  readonly clock: ZoneClock;

  constructor(readonly spec: FireSpec) {
    this.clock = new ZoneClock(spec.timezone);
    this.calendars = spec.calendars.map((c) => calendarMatcher(c, this.clock));
    this.skip = (spec.skip ?? []).map((c) => calendarMatcher(c, this.clock));
  }

  /**
   * The first fire time strictly after `after` (Unix seconds), or undefined when there is none: the
   * first time the calendars and intervals name that no skip calendar matches, as the server's
   * GetNextTime steps over excluded times.
   */
  next(after: number): number | undefined {
    let t = this.nominalNext(after);
    for (let i = 0; t !== undefined && this.excludedBy(t) >= 0; i++) {
      if (i >= MAX_SKIPPED_IN_A_ROW) return undefined;
      t = this.nominalNext(t);
    }
    return t;
  }

  /** Index of the first skip calendar that matches the instant, or -1. */
  excludedBy(sec: number): number {
    if (this.skip.length === 0) return -1;
    const w = this.clock.wall(sec); // once for all skip calendars: they share the zone
    return this.skip.findIndex((cal) => wallMatches(cal, w));
  }

  /** Whether the spec has calendars (the only part DST can affect). */
  get hasCalendars(): boolean {
    return this.calendars.length > 0;
  }

  /** The first time strictly after `after` the calendars and intervals name, skip calendars ignored. */
  nominalNext(after: number): number | undefined {
    let best: number | undefined;
    for (const cal of this.calendars) {
      const t = nextCalendarTime(cal, after);
      if (t !== undefined && (best === undefined || t < best)) best = t;
    }
    for (const { everySec, offsetSec } of this.spec.intervals) {
      // Integer division truncating toward zero, as in Go.
      const t = (Math.trunc((after - offsetSec) / everySec) + 1) * everySec + offsetSec;
      if (best === undefined || t < best) best = t;
    }
    if (
      this.spec.atSec !== undefined &&
      this.spec.atSec > after &&
      (best === undefined || this.spec.atSec < best)
    ) {
      best = this.spec.atSec;
    }
    return best;
  }

  /** Whether some calendar restricts the day of the week (Temporal reads it at local midnight). */
  get restrictsWeekdays(): boolean {
    return this.calendars.some((cal) => cal.sorted.weekdays !== undefined);
  }

  /**
   * The wall times some calendar names on a date, as seconds of the day in `[from, to)`, increasing, at
   * most `limit` of them. `dow` is the date's real weekday: what a user expects, not what Temporal reads.
   */
  namedOn(y: number, mo: number, d: number, dow: number, from: number, to: number, limit: number): number[] {
    const out = new Set<number>();
    for (const { fields: f, sorted } of this.calendars) {
      if (!(f.year(y) && f.month(mo) && f.dayOfMonth(d) && f.dayOfWeek(dow))) continue;
      let count = 0;
      for (const h of sorted.hours) {
        if ((h + 1) * 3600 <= from || h * 3600 >= to || count >= limit) continue;
        for (const time of sorted.times) {
          const sec = h * 3600 + time;
          if (sec < from) continue;
          if (sec >= to || count >= limit) break;
          out.add(sec);
          count++;
        }
      }
    }
    return [...out].sort((a, b) => a - b).slice(0, limit);
  }

  /** Whether some calendar names the wall time at this instant. */
  named(sec: number): boolean {
    return this.calendars.some((cal) => calendarMatches(cal, sec));
  }

  /** Whether some calendar names this wall time, whether or not it exists on that day. */
  namesWall(y: number, mo: number, d: number, h: number, mi: number, s: number, dow: number): boolean {
    return this.calendars.some(
      ({ fields: f }) =>
        f.year(y) &&
        f.month(mo) &&
        f.dayOfMonth(d) &&
        f.dayOfWeek(dow) &&
        f.hour(h) &&
        f.minute(mi) &&
        f.second(s),
    );
  }
}

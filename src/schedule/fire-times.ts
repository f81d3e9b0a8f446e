import type { StructuredCalendar } from './cron-fields';
import { calendarMatcher, calendarMatches, nextCalendarTime, type CalendarMatcher } from './calendar-next';
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
}

/** Computes successive fire times of a {@link FireSpec} the way the server's `GetNextTime` does. */
export class FireTimes {
  private readonly calendars: CalendarMatcher[];
  readonly clock: ZoneClock;

  constructor(readonly spec: FireSpec) {
    this.clock = new ZoneClock(spec.timezone);
    this.calendars = spec.calendars.map((c) => calendarMatcher(c, this.clock));
  }

  /** Whether the spec has calendars (the only part DST can affect). */
  get hasCalendars(): boolean {
    return this.calendars.length > 0;
  }

  /** The first fire time strictly after `after` (Unix seconds), or undefined when there is none. */
  next(after: number): number | undefined {
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

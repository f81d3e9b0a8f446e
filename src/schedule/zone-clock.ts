import { IANAZone } from 'luxon';

/*
 * Wall-clock arithmetic in one IANA zone, with the semantics of Go's `time` package, because the Temporal
 * server (Go) decides when a schedule fires and `preview` must agree with it to the second. In particular
 * `date()` resolves a wall time that does not exist or exists twice the way Go's `time.Date` does: it looks
 * up the zone offset at the wall time read as if it were UTC, then corrects once. For a repeated hour that
 * picks the later instant in zones east of UTC (Europe/Paris) and the earlier one west of it
 * (America/New_York), which is why Temporal's repeated-hour behaviour differs between the two.
 */

/** A local date and time, with the day of the week (0 = Sunday). Months start at 1. */
export interface WallTime {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  dow: number;
}

export class ZoneClock {
  private readonly zone: IANAZone;

  constructor(readonly name: string) {
    this.zone = IANAZone.create(name);
  }

  /** Offset from UTC in seconds at an instant (Unix seconds). */
  offset(sec: number): number {
    return this.zone.offset(sec * 1000) * 60;
  }

  /** The wall time at an instant (Unix seconds). */
  wall(sec: number): WallTime {
    return wallOf(sec + this.offset(sec));
  }

  /** Go's `time.Date(y, mo, d, h, mi, s, 0, zone).Unix()`: out-of-range fields carry over, as in Go. */
  date(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
    const asUtc = Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
    const guess = asUtc - this.offset(asUtc);
    return asUtc - this.offset(guess);
  }
}

/** The wall time whose fields, read as UTC, give these seconds (local seconds since the epoch). */
export function wallOf(localSec: number): WallTime {
  const t = new Date(localSec * 1000);
  return {
    y: t.getUTCFullYear(),
    mo: t.getUTCMonth() + 1,
    d: t.getUTCDate(),
    h: t.getUTCHours(),
    mi: t.getUTCMinutes(),
    s: t.getUTCSeconds(),
    dow: t.getUTCDay(),
  };
}

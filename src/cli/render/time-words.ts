import { DateTime } from 'luxon';
import { durationInWords } from '../../schedule/trigger-words';

/** `in 2 h 13 min`, `3 min ago`, `now` (under a second away), relative to `now`. */
export function relativeTime(at: Date, now: Date): string {
  const ms = at.getTime() - now.getTime();
  if (Math.abs(ms) < 1000) return 'now';
  const words = durationInWords(ms);
  return ms > 0 ? `in ${words}` : `${words} ago`;
}

/** An instant in a zone: `2027-03-28 03:30 CEST` (seconds when they are not 0). */
export function localTime(at: Date, zone: string): string {
  const t = DateTime.fromJSDate(at, { zone });
  return t.toFormat(t.second === 0 ? 'yyyy-MM-dd HH:mm' : 'yyyy-MM-dd HH:mm:ss') + ` ${t.toFormat('ZZZZ')}`;
}

/** An instant for people: its local time in the zone and how far it is from now, `2027-03-28 03:30 CEST (in 2 h 13 min)`. */
export function whenInWords(at: Date, zone: string, now: Date): string {
  return `${localTime(at, zone)} (${relativeTime(at, now)})`;
}

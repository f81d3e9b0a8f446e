import type { ScheduleSpecDescription } from '@temporalio/client';
import type { CompiledTrigger } from '../../../schedule/compile-trigger';
import {
  calendarFromDescription,
  calendarKey,
  calendarToCron,
  instantCalendar,
} from '../../../schedule/spec-calendar';
import type { Trigger } from '../../../schedule/trigger-types';

/*
 * Compares the spec temporal-flow asked for with the spec a schedule has now, by meaning: the server
 * rewrites cron strings into calendar ranges, so strings cannot be compared. Both sides are read into the
 * schedule model's calendars (schedule/spec-calendar.ts) and compared by their keys. Used to tell a job
 * edited outside temporal-flow (Temporal UI/CLI) and to describe its real trigger then.
 */

function fingerprint(timezone: string | undefined, calendars: string[], intervals: string[]): string {
  return JSON.stringify({ tz: timezone || 'UTC', calendars: calendars.sort(), intervals: intervals.sort() });
}

/** What a compiled trigger asks of Temporal, reduced to its meaning: comparable with `===`. */
export function expectedFingerprint(compiled: CompiledTrigger): string {
  const calendars =
    compiled.runAt !== undefined ? [instantCalendar(compiled.runAt)] : compiled.fire.calendars;
  return fingerprint(
    compiled.spec.timezone ?? 'UTC',
    calendars.map(calendarKey),
    compiled.fire.intervals.map((i) => `${i.everySec * 1000}/${i.offsetSec * 1000}`),
  );
}

/** Whether a calendar key names one second of one date, any weekday: the shape of a DST policy entry. */
const isInstantKey = (key: string) => {
  const [s, mi, h, d, mo, dow, y] = key.split(' ');
  return dow === '*' && [s, mi, h, d, mo, y].every((v) => /^\d+$/.test(v ?? ''));
};

/**
 * What a schedule's spec means now, as {@link expectedFingerprint} reduces it. With `dstEntries` (the
 * stored trigger has a DST policy), the entries the policy adds (see schedule/dst-compile.ts: calendars of
 * one second of one date, intervals with offset 0 whose `every` is an instant after 2001) are left out:
 * they depend on when the job was written, not on what it means.
 */
export function actualFingerprint(spec: ScheduleSpecDescription, dstEntries = false): string {
  const calendars = (spec.calendars ?? []).map((c) => calendarKey(calendarFromDescription(c)));
  const intervals = (spec.intervals ?? []).filter(
    (i) => !(dstEntries && Number(i.offset) === 0 && Number(i.every) >= 1e12),
  );
  return fingerprint(
    spec.timezone,
    dstEntries ? calendars.filter((k) => !isInstantKey(k)) : calendars,
    intervals.map((i) => `${i.every}/${i.offset}`),
  );
}

/** Shortest exact way to write a number of milliseconds: `2h`, `90s`, `1500ms`. */
export function formatMs(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/** The trigger a schedule's actual spec means, in our terms (used for jobs edited outside temporal-flow). */
export function triggerFromSpec(spec: ScheduleSpecDescription): Trigger {
  const timezone = spec.timezone || 'UTC';
  const calendars = spec.calendars ?? [];
  if (calendars.length > 0) {
    const cron = calendars.map((c) => calendarToCron(calendarFromDescription(c)));
    return { cron: cron.length === 1 ? cron[0]! : cron, timezone };
  }
  const interval = spec.intervals?.[0];
  if (interval) {
    return {
      every: formatMs(interval.every),
      ...(interval.offset ? { offset: formatMs(interval.offset) } : {}),
      timezone,
    };
  }
  return { cron: [], timezone };
}

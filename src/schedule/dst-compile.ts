import type { CalendarSpec, ScheduleSpec } from '@temporalio/client';
import { DateTime } from 'luxon';
import type { CompiledTrigger } from './compile-trigger';
import { MONTH_NAMES, type FieldRange, type StructuredCalendar } from './cron-fields';
import { InvalidPolicyError } from './errors';
import { FireTimes, type FireSpec } from './fire-times';
import { policySpans, type DstPolicy } from './dst-policy';
import { wallOf } from './zone-clock';

/*
 * A DST policy in the server's terms, over a horizon of dates: entries added to the schedule's spec that
 * make Temporal fire the runs it would drop or move, and the list of Temporal's fires that the run guard
 * skips (reason `dst`), because Temporal's `skip` exclusions are local wall times and cannot tell the two
 * 01:30s of a fall-back day apart.
 *
 * An added run in a gap's span is first tried as an explicit calendar entry (year, month, day, hour, minute, second) at
 * its wall time: readable, and enough for a gap's shifted run (Paris 02:30 -> 03:00). A run around a
 * repeated hour often cannot be named so (Temporal resolves 02:15 on a Paris fall-back day to CET, and never goes
 * back to the hour before once past it; calendar-next.ts rules 2 and 3), so it is added as an
 * interval whose `every` is that very instant (seconds since 1970) and offset 0: Temporal matches it at
 * that instant and next at twice it (2080 or later), which the run guard skips too. (An offset of the
 * instant itself would not do: Temporal, like Go, truncates toward zero and first matches epoch + offset
 * + every.) The result is checked against FireTimes (the model of the server's algorithm) before it is used:
 * the fires of the spec with the added entries, less the guard's skips, must be exactly the policy's
 * times, else the policy is refused for this trigger.
 */

/** Years of dates the policy is compiled for, from the moment the job is written. */
export const DST_HORIZON_YEARS = 5;

/** One added entry: a calendar naming one wall time, or an interval matching one instant. */
export type DstEntry =
  | { calendar: StructuredCalendar; spec: CalendarSpec }
  | { interval: { everySec: number; offsetSec: number } };

/** A DST policy compiled for `(from, until]`. */
export interface CompiledDst {
  /** Entries added to the schedule's spec. */
  entries: DstEntry[];
  /** Nominal times (UTC ISO, `...Z`) of Temporal's fires the run guard skips with reason `dst`. */
  skips: string[];
  /** End of the horizon (UTC ISO): past it, Temporal's own behaviour applies until the job is written again. */
  until: string;
}

function calendarEntry(localSec: number): DstEntry {
  const w = wallOf(localSec);
  const one = (v: number): FieldRange[] => [{ start: v, end: v, step: 1 }];
  return {
    calendar: {
      second: one(w.s),
      minute: one(w.mi),
      hour: one(w.h),
      dayOfMonth: one(w.d),
      month: one(w.mo),
      dayOfWeek: [{ start: 0, end: 6, step: 1 }],
      year: one(w.y),
    },
    spec: {
      year: w.y,
      month: MONTH_NAMES[w.mo - 1]!,
      dayOfMonth: w.d,
      hour: w.h,
      minute: w.mi,
      second: w.s,
    },
  };
}

function intervalEntry(t: number): DstEntry {
  return { interval: { everySec: t, offsetSec: 0 } };
}

/** The spec with the entries added, in the model's terms. */
export function withEntries(spec: FireSpec, entries: readonly DstEntry[]): FireSpec {
  return {
    ...spec,
    calendars: [...spec.calendars, ...entries.flatMap((e) => ('calendar' in e ? [e.calendar] : []))],
    intervals: [...spec.intervals, ...entries.flatMap((e) => ('interval' in e ? [e.interval] : []))],
  };
}

const iso = (sec: number) => new Date(sec * 1000).toISOString().replace('.000Z', 'Z');

const HOUR = 3600;
/** Margin around a span: Temporal's sequence is back on its ordinary times within it (a change is at most 2 h). */
export const SPAN_MARGIN = 3 * HOUR;

/** Fires of a spec in `[a, b)`, following the server's sequence from a margin before `a`. */
export function firesIn(fire: FireTimes, a: number, b: number): number[] {
  const out: number[] = [];
  for (let t = fire.next(a - SPAN_MARGIN); t !== undefined && t < b; t = fire.next(t))
    if (t >= a) out.push(t);
  return out;
}

/**
 * Compiles a DST policy for the fires in `(from, until]` (Unix seconds).
 *
 * @throws InvalidPolicyError when the server's spec cannot make the policy's times exact.
 */
export function compileDstPolicy(
  fire: FireTimes,
  policy: DstPolicy,
  from: number,
  until: number,
): CompiledDst {
  const entries: DstEntry[] = [];
  const skips: number[] = [];
  for (const s of policySpans(fire, policy, from, until)) {
    // A margin either side: the sequence leaves Temporal's own times in the span and is back on them after.
    const [a, b] = [s.i0 - SPAN_MARGIN, s.i1 + SPAN_MARGIN];
    const native = new Set(firesIn(fire, a, b));
    const decided = (t: number) => t >= s.i0 && t < s.i1;
    // Every run the policy yields in the span, and Temporal's own outside it, must be in the sequence.
    const required = [...s.runs, ...[...native].filter((t) => !decided(t))];
    const added = new Map<number, 'calendar' | 'interval'>();
    // A gap's runs exist once: a calendar entry names them. A repeat's often cannot be named (see the header).
    const first = s.tr.after > s.tr.before ? 'calendar' : 'interval';
    for (const t of s.runs) if (!native.has(t)) added.set(t, first);
    let mine: DstEntry[];
    let fires: number[];
    for (;;) {
      mine = [...added].map(([t, how]) =>
        how === 'interval' ? intervalEntry(t) : calendarEntry(t + fire.clock.offset(t)),
      );
      // Entries of other spans name other dates: they cannot change this span's sequence.
      fires = firesIn(new FireTimes(withEntries(fire.spec, mine)), a, b);
      const got = new Set(fires);
      const lost = required.filter((t) => !got.has(t));
      if (lost.length === 0) break;
      if (lost.every((t) => added.get(t) === 'interval')) {
        throw new InvalidPolicyError(
          'dst',
          `Temporal cannot run ${fire.clock.name} at ${lost.map(iso).join(', ')} (around the clock change of ${iso(s.tr.at)}) as the DST policy asks; leave out dst.${s.tr.after > s.tr.before ? 'gap' : 'overlap'} for this job`,
        );
      }
      for (const t of lost) added.set(t, added.has(t) ? 'interval' : first);
    }
    entries.push(...mine);
    const wanted = new Set(s.runs);
    for (const t of fires) if (decided(t) ? !wanted.has(t) : !native.has(t)) skips.push(t);
  }
  const inRange = (t: number) => t > from && t <= until;
  // An interval entry's second match (see the header) is never a run.
  const seconds = entries.flatMap((e) => ('interval' in e ? [2 * e.interval.everySec] : []));
  return {
    entries,
    skips: [...new Set([...skips.filter(inRange), ...seconds])].sort((a, b) => a - b).map(iso),
    until: iso(until),
  };
}

/** A compiled trigger's schedule spec with its DST policy applied for {@link DST_HORIZON_YEARS} from `now`. */
export interface DstScheduleSpec {
  spec: ScheduleSpec;
  /** Set when the trigger has a DST policy: what was added, and what the run guard skips. */
  dst?: CompiledDst;
}

/**
 * The schedule spec of a compiled trigger with its DST policy applied from `now` for
 * {@link DST_HORIZON_YEARS} (the horizon moves on every write of the job); the trigger's own spec when it
 * has no policy.
 */
export function dstScheduleSpec(compiled: CompiledTrigger, now: Date): DstScheduleSpec {
  if (!compiled.dst) return { spec: compiled.spec };
  const from = Math.floor(now.getTime() / 1000);
  const until = Math.floor(
    DateTime.fromSeconds(from, { zone: 'UTC' }).plus({ years: DST_HORIZON_YEARS }).toSeconds(),
  );
  const dst = compileDstPolicy(new FireTimes(compiled.fire), compiled.dst, from, until);
  const calendars = dst.entries.flatMap((e) => ('spec' in e ? [e.spec] : []));
  const intervals = dst.entries.flatMap((e) =>
    'interval' in e ? [{ every: e.interval.everySec * 1000, offset: e.interval.offsetSec * 1000 }] : [],
  );
  return {
    spec: {
      ...compiled.spec,
      ...(calendars.length > 0 ? { calendars: [...(compiled.spec.calendars ?? []), ...calendars] } : {}),
      ...(intervals.length > 0 ? { intervals: [...(compiled.spec.intervals ?? []), ...intervals] } : {}),
    },
    dst,
  };
}

import { findTransitions } from './dst';
import { instantsOf, MAX_EXAMINED, namedWalls, span, type Transition } from './dst-compare';
import { InvalidPolicyError } from './errors';
import { FireTimes } from './fire-times';
import { describeValue } from '../errors';

/*
 * The per-job DST policy: what a calendar or cron job does with a local time that does not exist (a gap,
 * clocks go forward) or that happens twice (an overlap, clocks go back). Left out, a side keeps Temporal's
 * own behaviour (calendar-next.ts), so jobs written before the policy existed keep their meaning.
 *
 * The times a policy yields around one clock change are defined from the named wall times alone: a wall
 * that exists once runs at its instant; one in a gap runs at the first instant after the gap (`shift`) or
 * not at all (`skip`); one that happens twice runs at its first instant (`once`) or at both (`twice`).
 * Whatever Temporal would fire around that change that this does not name (its replayed hour, its late
 * start, its weekday read at a midnight that does not exist) is not run, and whatever it drops is run.
 * dst-compile.ts turns these times into calendar entries and run-guard skips.
 */

/** What a job does with a local time that does not exist, or happens twice, on a DST day. */
export interface DstPolicy {
  /**
   * A named local time that does not exist (clocks go forward): `skip` does not run it, `shift` runs it
   * once, at the first instant after the gap (Paris 02:30 -> 03:00). @default Temporal's own behaviour
   */
  gap?: 'skip' | 'shift';
  /**
   * A named local time that happens twice (clocks go back): `once` runs it at its first occurrence,
   * `twice` at both. @default Temporal's own behaviour
   */
  overlap?: 'once' | 'twice';
}

/** What a policy does around one clock change. */
export type DstRule = NonNullable<DstPolicy['gap']> | NonNullable<DstPolicy['overlap']>;

const DAY = 86_400;
const HOUR = 3600;
const GAPS = ['skip', 'shift'] as const;
const OVERLAPS = ['once', 'twice'] as const;

/**
 * Checks a DST policy as given (a job's `dst`, or the scheduler's default).
 *
 * @throws InvalidPolicyError naming the bad field.
 */
export function validateDstPolicy(p: unknown, field = 'dst'): DstPolicy {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) {
    throw new InvalidPolicyError(
      field,
      `${field} must be an object such as { gap: 'shift', overlap: 'once' }, got ${describeValue(p)}`,
    );
  }
  const given = p as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (key !== 'gap' && key !== 'overlap') {
      throw new InvalidPolicyError(`${field}.${key}`, `${field} has only "gap" and "overlap", got "${key}"`);
    }
  }
  const check = (key: 'gap' | 'overlap', allowed: readonly string[]) => {
    const v = given[key];
    if (v !== undefined && !allowed.includes(v as string)) {
      throw new InvalidPolicyError(
        `${field}.${key}`,
        `${field}.${key} must be ${allowed.map((a) => `'${a}'`).join(' or ')} (or left out for Temporal's own behaviour), got ${describeValue(v)}`,
      );
    }
  };
  check('gap', GAPS);
  check('overlap', OVERLAPS);
  return {
    ...(given.gap !== undefined ? { gap: given.gap as DstPolicy['gap'] } : {}),
    ...(given.overlap !== undefined ? { overlap: given.overlap as DstPolicy['overlap'] } : {}),
  };
}

/** True when the policy changes nothing (both sides left to Temporal). */
export function isNativePolicy(policy: DstPolicy | undefined): boolean {
  return !policy || (policy.gap === undefined && policy.overlap === undefined);
}

/** The rule that applies to a clock change: the gap side when clocks go forward, else the overlap side. */
export function ruleFor(policy: DstPolicy, tr: Transition): DstRule | undefined {
  return tr.after > tr.before ? policy.gap : policy.overlap;
}

/** One clock change a policy applies to: the instants `[i0, i1)` it decides, and the runs it yields there. */
export interface PolicySpan {
  tr: Transition;
  rule: DstRule;
  i0: number;
  i1: number;
  /** The instants the policy runs in `[i0, i1)`, increasing. */
  runs: number[];
  /** The named walls (local seconds) in the span, for wording what was done. */
  walls: number[];
}

/** The runs the policy yields around one change (see the header). */
export function policySpan(fire: FireTimes, tr: Transition, rule: DstRule): PolicySpan {
  // An hour wider than the warnings' span: Temporal's replay can reach past it in a zone whose hours
  // start at :45 UTC (Chatham runs 04:48 again, one hour late, on its fall-back day).
  const narrow = span(fire, tr);
  const [i0, i1] = [narrow.i0 - HOUR, narrow.i1 + HOUR];
  const walls = namedWalls(fire, tr, i0, i1, MAX_EXAMINED + 1);
  if (walls.length > MAX_EXAMINED) {
    throw new InvalidPolicyError(
      'dst',
      `the trigger names more than ${MAX_EXAMINED.toLocaleString('en-US')} times around the clock change of ${new Date(tr.at * 1000).toISOString()} in ${fire.clock.name}: a DST policy is for triggers that run at most every few seconds; leave dst out for this job`,
    );
  }
  const runs = new Set<number>();
  for (const wall of walls) {
    const at = instantsOf(tr, wall);
    if (at.length === 0) {
      if (rule === 'shift') runs.add(tr.at);
    } else if (at.length === 1 || rule === 'once') runs.add(at[0]!);
    else at.forEach((t) => runs.add(t));
  }
  return {
    tr,
    rule,
    i0,
    i1,
    runs: [...runs].filter((t) => t >= i0 && t < i1).sort((a, b) => a - b),
    walls,
  };
}

/** The changes in `(from, to]` (and a day either side, whose spans may reach in) that the policy decides. */
export function policySpans(fire: FireTimes, policy: DstPolicy, from: number, to: number): PolicySpan[] {
  if (!fire.hasCalendars || isNativePolicy(policy)) return [];
  return findTransitions(fire.clock, from - 2 * DAY, to + 2 * DAY).flatMap((tr) => {
    const rule = ruleFor(policy, tr);
    return rule ? [policySpan(fire, tr, rule)] : [];
  });
}

/** Temporal's own fire times in `(from, to]` (Unix seconds). */
export function nativeTimes(fire: FireTimes, from: number, to: number): number[] {
  const out: number[] = [];
  for (let t = fire.next(from); t !== undefined && t <= to; t = fire.next(t)) out.push(t);
  return out;
}

/**
 * The times a job runs under its DST policy in `(from, to]`: Temporal's own times, with those in each
 * decided span replaced by the policy's runs there.
 */
export function policyTimes(fire: FireTimes, policy: DstPolicy, from: number, to: number): number[] {
  const spans = policySpans(fire, policy, from, to);
  const inSpan = (t: number) => spans.some((s) => t >= s.i0 && t < s.i1);
  const out = nativeTimes(fire, from, to).filter((t) => !inSpan(t));
  for (const s of spans) out.push(...s.runs.filter((t) => t > from && t <= to));
  return [...new Set(out)].sort((a, b) => a - b);
}

import { DateTime } from 'luxon';
import { changeText, type DstWarning } from './dst';
import { instantsOf } from './dst-compare';
import type { PolicySpan } from './dst-policy';
import type { FireTimes } from './fire-times';
import { wallOf } from './zone-clock';

/*
 * What `preview` says about a clock change a DST policy decided: the named times the change touches and
 * what the policy did with them, and how many of Temporal's own runs there it undid (skipped by the run
 * guard with reason `dst`) or added (entries in the spec). Changes no policy side decides keep
 * Temporal's warnings (dst.ts).
 */

const pad = (n: number) => String(n).padStart(2, '0');

function local(fire: FireTimes, sec: number): DateTime {
  return DateTime.fromSeconds(sec, { zone: fire.clock.name });
}
const hm = (t: DateTime) => t.toFormat(t.second === 0 ? 'HH:mm' : 'HH:mm:ss');
const at = (t: DateTime) => `${hm(t)} ${t.toFormat('ZZ')}`;
function wallText(wall: number): string {
  const w = wallOf(wall);
  return w.s === 0 ? `${pad(w.h)}:${pad(w.mi)}` : `${pad(w.h)}:${pad(w.mi)}:${pad(w.s)}`;
}
function wallIso(wall: number): string {
  const w = wallOf(wall);
  return `${w.y}-${pad(w.mo)}-${pad(w.d)}T${pad(w.h)}:${pad(w.mi)}:${pad(w.s)}`;
}
function list(items: string[]): string {
  if (items.length <= 4)
    return items.length === 1 ? items[0]! : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
  return `${items[0]} to ${items.at(-1)} (${items.length} times)`;
}

/** The warning for one decided change, or none when it touches no named time and Temporal runs as asked. */
export function policyWarning(
  fire: FireTimes,
  s: PolicySpan,
  native: readonly number[],
): DstWarning | undefined {
  const { tr, rule } = s;
  const zone = fire.clock.name;
  const date = local(fire, tr.at).toISODate()!;
  const transition = new Date(tr.at * 1000).toISOString().replace('.000Z', 'Z');
  const change = changeText(fire.clock, tr.at);
  const inGap = s.walls.filter((w) => instantsOf(tr, w).length === 0);
  const twice = s.walls.filter((w) => instantsOf(tr, w).length === 2);
  const runs = new Set(s.runs);
  const nativeIn = native.filter((t) => t >= s.i0 && t < s.i1);
  const undone = nativeIn.filter((t) => !runs.has(t));
  const added = s.runs.filter((t) => !nativeIn.includes(t));
  const fix =
    undone.length + added.length === 0
      ? ''
      : '; and so that Temporal runs exactly this' +
        (undone.length > 0
          ? `, the run guard skips its own run${undone.length === 1 ? '' : 's'} at ${list(undone.map((t) => at(local(fire, t))))} (reason dst)`
          : '') +
        (added.length > 0
          ? `, the spec adds ${list(added.map((t) => at(local(fire, t))))}, which Temporal alone would not run`
          : '');
  const one = (n: number) => n === 1;
  if (inGap.length > 0) {
    const times = list(inGap.map(wallText));
    const what =
      rule === 'shift'
        ? `dst.gap 'shift' runs ${one(inGap.length) ? 'it' : 'them'} once at ${at(local(fire, tr.at))}`
        : `dst.gap 'skip' does not run ${one(inGap.length) ? 'it' : 'them'}`;
    return {
      date,
      transition,
      kind: rule === 'shift' ? 'shifted' : 'skipped',
      localTimes: inGap.map(wallIso),
      message: `${date} ${times} ${zone} ${one(inGap.length) ? 'does' : 'do'} not exist (${change}): ${what}${fix}`,
    };
  }
  if (twice.length > 0) {
    const times = list(twice.map(wallText));
    const instants = twice.flatMap((w) => instantsOf(tr, w));
    const what =
      rule === 'once'
        ? `dst.overlap 'once' runs ${one(twice.length) ? 'it' : 'them'} at the first occurrence only (${at(local(fire, instants[0]!))})`
        : `dst.overlap 'twice' runs ${one(twice.length) ? 'it' : 'them'} both times (${at(local(fire, instants[0]!))} and ${at(local(fire, instants[1]!))})`;
    return {
      date,
      transition,
      kind: rule === 'once' ? 'once' : 'twice',
      localTimes: instants.map((t) => local(fire, t).toISO({ suppressMilliseconds: true })!),
      message: `${date} ${times} ${zone} ${one(twice.length) ? 'happens' : 'happen'} twice (${change}): ${what}${fix}`,
    };
  }
  if (!fix) return undefined;
  return {
    date,
    transition,
    kind: 'corrected',
    localTimes: [...undone, ...added]
      .sort((a, b) => a - b)
      .map((t) => local(fire, t).toISO({ suppressMilliseconds: true })!),
    message: `${date} ${zone} (${change}): no named time is in the change${fix}`,
  };
}

import type { CompiledExclusions } from './exclusions';
import type { CompiledDst } from './dst-compile';

/*
 * Where a job's horizon ends: the parts of its schedule compiled for a span of years (holiday sets and
 * weekday corrections for whole years, see holidays.ts; the DST policy for five years from the write, see
 * dst-compile.ts) hold until the first of them runs out. Its runs carry the instant and renew the job
 * before it (workflows/guards/horizon-renewal.ts).
 */

/**
 * The end (UTC ISO) of the horizon of a job's compiled exclusions and DST policy, whichever ends first;
 * undefined when neither depends on the years it was compiled for. A year-based horizon ends when its last
 * year does (the first instant of the next year, UTC).
 */
export function horizonEnd(
  exclusions: CompiledExclusions | undefined,
  dst: CompiledDst | undefined,
): string | undefined {
  const ends: number[] = [];
  if (exclusions?.horizon) ends.push(Date.UTC(exclusions.horizon.to + 1, 0, 1));
  if (dst) ends.push(Date.parse(dst.until));
  return ends.length > 0 ? new Date(Math.min(...ends)).toISOString() : undefined;
}

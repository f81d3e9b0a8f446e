/*
 * The checker's own model of a job's nominal times, written apart from src/schedule (an oracle is not the
 * code it checks): intervals and one-offs by plain arithmetic on the epoch, from Temporal's documented
 * meaning and the project's docs (docs/scheduling.md, docs/cron-and-timezones.md), never by asking the
 * project's preview.
 *
 * - An interval `every: 'Ns'` (offset 0) fires at each multiple of N seconds since 1970 (Temporal's
 *   IntervalSpec: epoch + k * interval + phase).
 * - A calendar `second: '*\/N'` (N dividing 60), every minute and hour, fires at each second of the minute
 *   divisible by N: in UTC that is again every multiple of N seconds since 1970.
 * - A one-off fires once, at its `runAt` taken down to its whole second (a calendar spec names seconds).
 */

/** A trigger as the model reads it: what the plan asked for, with a one-off's time fixed at run time. */
export type ModelTrigger =
  { kind: 'interval'; everyS: number } | { kind: 'calendar'; stepS: number } | { kind: 'once'; at: number };

/** The nominal times of `trigger` in (from, to], ms since 1970, in order. */
export function nominalTimes(trigger: ModelTrigger, from: number, to: number): number[] {
  switch (trigger.kind) {
    case 'interval':
      return multiples(trigger.everyS * 1_000, from, to);
    case 'calendar':
      return multiples(trigger.stepS * 1_000, from, to);
    case 'once': {
      const at = Math.floor(trigger.at / 1_000) * 1_000;
      return at > from && at <= to ? [at] : [];
    }
  }
}

function multiples(step: number, from: number, to: number): number[] {
  const out: number[] = [];
  for (let t = (Math.floor(from / step) + 1) * step; t <= to; t += step) out.push(t);
  return out;
}

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
 * - A cron in a time zone (seconds, hours, and one Quartz day form) is read by cron-parser (a well-kept
 *   library, luxon for the zones), but for `nW` and `L-n`, which it lacks: those days are judged by the
 *   Quartz model of the fuzz tests (test/helpers/quartz-model.ts, written from Quartz's definitions). Only
 *   away from clock changes: cron-parser moves a time a gap skips, which is neither Temporal's behaviour
 *   nor a policy's, so the checker never asks it about a DST day.
 * - A cron with a DST policy (`dst: { gap, overlap }`) is read by the DST model of the fuzz tests
 *   (test/helpers/dst-model.ts: each named wall time resolved to the instants the zone's clock shows it,
 *   then the policy), on DST days and off them.
 */
import { CronExpressionParser } from 'cron-parser';
import { DateTime } from 'luxon';
import { modelTimes as dstModelTimes, type ModelPolicy } from '../helpers/dst-model';
import { domMatches } from '../helpers/quartz-model';

/** A trigger as the model reads it: what the plan asked for, with a one-off's time fixed at run time. */
export type ModelTrigger =
  | { kind: 'interval'; everyS: number }
  | { kind: 'calendar'; stepS: number }
  | { kind: 'once'; at: number }
  | {
      kind: 'cron';
      zone: string;
      /** Every `stepS` seconds of every minute... */
      stepS: number;
      /** ...of these local hours (null: all)... */
      hours: number[] | null;
      /** ...on the local days these fields name (the project's dialect: `*`, `nW`, `L-n`; `*`, `FRI#n`, `FRIL`). */
      dom: string;
      dow: string;
    }
  | { kind: 'dst'; zone: string; minutes: number[]; policy: ModelPolicy };

/** The trigger as the project's cron dialect writes it (5 fields, or 7: seconds first, year last). */
export function cronOf(t: Extract<ModelTrigger, { kind: 'cron' | 'dst' }>): string {
  if (t.kind === 'dst') return `${t.minutes.join(',')} * * * *`;
  return `*/${t.stepS} * ${t.hours ? t.hours.join(',') : '*'} ${t.dom} * ${t.dow} *`;
}

const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/** cron-parser's reading of the cron (6 fields); day-of-month forms it lacks are left to {@link domMatches}. */
function cronParserExpression(t: Extract<ModelTrigger, { kind: 'cron' }>): string {
  const dow = t.dow.replace(/^([A-Z]{3})(?=#|L$)/, (name) => String(DAYS.indexOf(name)));
  const dom = /W|L/.test(t.dom) ? '*' : t.dom;
  return `*/${t.stepS} * ${t.hours ? t.hours.join(',') : '*'} ${dom} * ${dow}`;
}

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
    case 'cron': {
      const it = CronExpressionParser.parse(cronParserExpression(trigger), {
        currentDate: new Date(from),
        tz: trigger.zone,
      });
      const out: number[] = [];
      for (;;) {
        const t = it.next().getTime();
        if (t > to) return out;
        const local = DateTime.fromMillis(t, { zone: trigger.zone });
        if (t > from && domMatches(trigger.dom, local)) out.push(t);
      }
    }
    case 'dst':
      return dstModelTimes(
        { minutes: trigger.minutes, hours: [...Array(24).keys()] },
        trigger.zone,
        trigger.policy,
        from / 1_000,
        to / 1_000,
      ).map((t) => t * 1_000);
  }
}

function multiples(step: number, from: number, to: number): number[] {
  const out: number[] = [];
  for (let t = (Math.floor(from / step) + 1) * step; t <= to; t += step) out.push(t);
  return out;
}

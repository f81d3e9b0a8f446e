import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { pipeline } from 'temporal-flow';
import { createScheduleTestEnv } from 'temporal-flow/testing';
import { compileTrigger } from '../../src/schedule/compile-trigger';
import { previewTrigger } from '../../src/schedule/preview';
import { cronOf, modelTimes, namedTimesArb, type NamedTimes } from '../helpers/dst-model';
import { fuzzParams } from '../helpers/fuzz';

/*
 * No named time lost under the default (issue 33, Deliver 5): where a zone's clocks jump over midnight
 * west of UTC (America/Santiago in September, America/Havana and Atlantic/Azores in March), Temporal reads
 * that date's weekday at a midnight that does not exist and takes it for the day before. A cron or
 * calendar trigger that names weekdays and sets no DST policy is now compiled with { gap: 'skip' }
 * (weekday-misread.ts), so it runs exactly its named times; `dst: {}` keeps the server's raw reading.
 * Expected times come from the independent model of test/helpers/dst-model.ts (luxon, first principles).
 */

const ZONES = ['America/Santiago', 'America/Havana', 'Atlantic/Azores'] as const;
/** The misread dates of 2027-2029 (the Sunday the clocks jump over midnight), from luxon. */
function misreadDates(zone: string): DateTime[] {
  const out: DateTime[] = [];
  for (let d = DateTime.fromISO('2027-01-01', { zone }); d.year < 2030; d = d.plus({ days: 1 })) {
    // Midnight does not exist: luxon moves 00:00 forward, to 01:00.
    if (d.startOf('day').hour !== 0) out.push(d.startOf('day'));
  }
  return out;
}

describe('weekday jobs in zones whose midnight jumps: the named times exactly, by default', () => {
  it('the misread dates are the ones the issue names', () => {
    expect(misreadDates('America/Santiago').map((d) => d.toISODate())).toEqual([
      '2027-09-05',
      '2028-09-03',
      '2029-09-02',
    ]);
    expect(misreadDates('America/Havana').map((d) => d.toISODate())).toEqual([
      '2027-03-14',
      '2028-03-12',
      '2029-03-11',
    ]);
  });

  it('preview lists what the model names around every misread date (generated weekday jobs)', () => {
    const cases = fc.tuple(
      namedTimesArb.filter(
        (n): n is NamedTimes & { weekdays: number[] } =>
          n.weekdays !== undefined && n.weekdays.length < 7 && n.minutes.length * n.hours.length <= 48,
      ),
      fc.constantFrom(...ZONES),
    );
    fc.assert(
      fc.property(cases, ([named, zone]) => {
        const trigger = { cron: cronOf(named), timezone: zone };
        for (const day of misreadDates(zone)) {
          const from = day.minus({ days: 2 }).toSeconds();
          const to = day.plus({ days: 2 }).toSeconds();
          const expected = modelTimes(named, zone, { gap: 'skip', overlap: 'once' }, from, to).map((s) =>
            new Date(s * 1000).toISOString().replace('.000Z', 'Z'),
          );
          const listed = previewTrigger(trigger, 200, { from: new Date(from * 1000) })
            .fireTimes.map((f) => f.utc)
            .filter((utc) => Date.parse(utc) <= to * 1000);
          expect(listed, JSON.stringify({ trigger, day: day.toISODate() })).toEqual(expected);
        }
      }),
      { ...fuzzParams(20), interruptAfterTimeLimit: undefined },
    );
  });

  it('dst: {} keeps the server raw reading: the Sunday is lost, and a Saturday job runs on it', () => {
    const at = (cron: string, dst?: object) =>
      previewTrigger({ cron, timezone: 'America/Santiago', ...(dst ? { dst } : {}) }, 2, {
        from: '2027-09-04T14:00:00Z', // 10:00 local, after that Saturday's run
      }).fireTimes.map((f) => f.local);
    expect(at('30 2 * * 0')).toEqual(['2027-09-05T02:30:00-03:00', '2027-09-12T02:30:00-03:00']);
    expect(at('30 2 * * 0', {})).toEqual(['2027-09-12T02:30:00-03:00', '2027-09-19T02:30:00-03:00']);
    expect(at('0 9 * * SAT')).toEqual(['2027-09-11T09:00:00-03:00', '2027-09-18T09:00:00-03:00']);
    expect(at('0 9 * * SAT', {})).toEqual(['2027-09-05T09:00:00-03:00', '2027-09-11T09:00:00-03:00']);
  });

  it('changes nothing else: no weekday named, another zone, a policy given, or more than 48 times a day', () => {
    const dstOf = (trigger: object, defaultDst?: object) =>
      compileTrigger({ timezone: 'America/Santiago', ...trigger }, 'UTC', defaultDst).dst;
    expect(dstOf({ cron: '30 2 * * *' })).toBeUndefined();
    expect(dstOf({ cron: '30 2 * * 0', timezone: 'Europe/Paris' })).toBeUndefined();
    expect(dstOf({ cron: '30 2 * * 0', dst: {} })).toBeUndefined();
    expect(dstOf({ cron: '30 2 * * 0' }, {})).toBeUndefined(); // the scheduler's dst: {}
    expect(dstOf({ cron: '30 2 * * 0', dst: { overlap: 'twice' } })).toEqual({ overlap: 'twice' });
    expect(dstOf({ cron: '*/30 * * * 0' })).toEqual({ gap: 'skip' }); // 48 a day
    expect(dstOf({ cron: '*/20 * * * 0' })).toBeUndefined(); // 72 a day: the server's reading, and preview's warning
    expect(dstOf({ calendar: { hour: 9, dayOfWeek: 'SUN' } })).toEqual({ gap: 'skip' });
  });
});

describe('the Santiago job in the schedule test environment: the year before and after', () => {
  const steps = {
    async report() {
      return 'sent';
    },
  };
  const weekly = pipeline('weekly', { steps }).step('report');
  const sundays = () => {
    const out: string[] = [];
    const first = DateTime.fromISO('2027-01-03T02:30', { zone: 'America/Santiago' });
    for (let d = first; d.year < 2028; d = d.plus({ weeks: 1 })) out.push(d.toUTC().toISO()!);
    return out;
  };
  const year = async (dst?: object) => {
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps, timezone: 'America/Santiago' });
    await env.schedule(weekly, { cron: '30 2 * * 0', jobId: 'weekly', ...(dst ? { dst } : {}) });
    await env.advanceTo('2028-01-01T00:00:00Z');
    return env
      .occurrences('weekly')
      .filter((o) => o.outcome === 'ran')
      .map((o) => o.nominal);
  };

  it('before (dst: {}, the server raw reading): 51 Sundays, 2027-09-05 lost', async () => {
    const ran = await year({});
    expect(ran).toEqual(sundays().filter((s) => !s.startsWith('2027-09-05')));
  });

  it('after (the default): all 52 Sundays, 2027-09-05 02:30 included', async () => {
    expect(await year()).toEqual(sundays());
  });
});

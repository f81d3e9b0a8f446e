import { describe, expect, it } from 'vitest';
import { previewTrigger } from '../../src/schedule/preview';
import type { Trigger } from '../../src/schedule/trigger-types';

/*
 * previewTrigger() lists fire times strictly after `from` in local time and UTC. These tables pin the
 * behaviour; test/integration/preview-matching-times.test.ts proves the same engine equals the server.
 * TZ=UTC (vitest config): nothing here may depend on the machine's zone.
 */

const local = (trigger: Trigger, n: number, from: string, defaultTimezone?: string) =>
  previewTrigger(trigger, n, { from, ...(defaultTimezone ? { defaultTimezone } : {}) }).fireTimes.map(
    (f) => f.local,
  );

describe('fire times', () => {
  const CASES: [string, Trigger, number, string, string[]][] = [
    [
      'strictly after from',
      { cron: '0 2 * * *' },
      2,
      '2027-01-01T02:00:00Z',
      ['2027-01-02T02:00:00Z', '2027-01-03T02:00:00Z'],
    ],
    [
      'a fraction of a second after a match does not repeat it',
      { cron: '0 2 * * *' },
      1,
      '2027-01-01T02:00:00.500Z',
      ['2027-01-02T02:00:00Z'],
    ],
    [
      'local time in the trigger zone, with its offset',
      { cron: '30 9 * * MON-FRI', timezone: 'Asia/Kolkata' },
      2,
      '2027-01-01T00:00:00Z',
      ['2027-01-01T09:30:00+05:30', '2027-01-04T09:30:00+05:30'],
    ],
    [
      'day-of-month AND day-of-week: the first Monday',
      { cron: '0 9 1-7 * MON' },
      3,
      '2027-01-01T00:00:00Z',
      ['2027-01-04T09:00:00Z', '2027-02-01T09:00:00Z', '2027-03-01T09:00:00Z'],
    ],
    [
      'the 31st skips short months',
      { cron: '0 0 31 * *' },
      3,
      '2027-01-01T00:00:00Z',
      ['2027-01-31T00:00:00Z', '2027-03-31T00:00:00Z', '2027-05-31T00:00:00Z'],
    ],
    [
      'leap day',
      { calendar: { month: 'FEB', dayOfMonth: 29, hour: 12 } },
      2,
      '2027-01-01T00:00:00Z',
      ['2028-02-29T12:00:00Z', '2032-02-29T12:00:00Z'],
    ],
    [
      'a year field ends the schedule: fewer than asked',
      { cron: '0 0 12 1 JAN * 2027' },
      5,
      '2026-06-01T00:00:00Z',
      ['2027-01-01T12:00:00Z'],
    ],
    [
      'every 2 hours from 01:00 (UTC): the offset anchors the interval',
      { hours: 2, offset: '1h' },
      3,
      '2027-01-01T00:00:00Z',
      ['2027-01-01T01:00:00Z', '2027-01-01T03:00:00Z', '2027-01-01T05:00:00Z'],
    ],
    [
      'intervals count from the Unix epoch in UTC, not from local midnight',
      { hours: 2, offset: '1h', timezone: 'Asia/Kolkata' },
      2,
      '2027-01-01T00:00:00Z',
      ['2027-01-01T06:30:00+05:30', '2027-01-01T08:30:00+05:30'],
    ],
    [
      'a one-off runs once',
      { runAt: '2027-06-01T12:34:56Z', timezone: 'Europe/Paris' },
      3,
      '2027-01-01T00:00:00Z',
      ['2027-06-01T14:34:56+02:00'],
    ],
    ['a one-off in the past has no run', { runAt: '2026-06-01T12:00:00Z' }, 3, '2027-01-01T00:00:00Z', []],
  ];

  it.each(CASES)('%s', (_name, trigger, n, from, expected) => {
    expect(local(trigger, n, from)).toEqual(expected);
  });

  it('uses the default time zone when the trigger names none', () => {
    expect(local({ cron: '0 9 * * *' }, 1, '2027-01-01T00:00:00Z', 'America/New_York')).toEqual([
      '2027-01-01T09:00:00-05:00',
    ]);
  });

  it('gives each run in UTC too', () => {
    const { fireTimes, timezone } = previewTrigger({ cron: '0 9 * * *', timezone: 'Europe/Paris' }, 1, {
      from: '2027-07-01T00:00:00Z',
    });
    expect(timezone).toBe('Europe/Paris');
    expect(fireTimes).toEqual([{ utc: '2027-07-01T07:00:00Z', local: '2027-07-01T09:00:00+02:00' }]);
  });

  it('Sunday as 0 and as 7 are the same day', () => {
    expect(local({ cron: '0 9 * * 7' }, 4, '2027-01-01T00:00:00Z')).toEqual(
      local({ cron: '0 9 * * 0' }, 4, '2027-01-01T00:00:00Z'),
    );
  });
});

describe('DST: what Temporal does, and the warnings that say so', () => {
  const warnings = (trigger: Trigger, from: string) =>
    previewTrigger(trigger, 1, { from }).dstWarnings.map((w) => ({
      date: w.date,
      kind: w.kind,
      message: w.message,
    }));

  it('spring forward: a time in the gap does not exist, Temporal skips that day (Europe/Paris, 02:00 -> 03:00)', () => {
    expect(local({ cron: '30 2 * * *', timezone: 'Europe/Paris' }, 2, '2027-03-27T12:00:00Z')).toEqual([
      '2027-03-29T02:30:00+02:00', // no run on the 28th
      '2027-03-30T02:30:00+02:00',
    ]);
    expect(warnings({ cron: '30 2 * * *', timezone: 'Europe/Paris' }, '2026-11-01T00:00:00Z')).toEqual([
      {
        date: '2027-03-28',
        kind: 'skipped',
        message:
          '2027-03-28 02:30 Europe/Paris does not exist (clocks go 02:00 -> 03:00): Temporal skips this run',
      },
    ]);
  });

  it('fall back west of UTC: a time in the repeated hour runs twice (America/New_York)', () => {
    // Go's time.Date picks the first 01:30 (EDT) and Temporal then replays the hour with +1h (EST).
    expect(local({ cron: '30 1 * * *', timezone: 'America/New_York' }, 3, '2026-10-31T12:00:00Z')).toEqual([
      '2026-11-01T01:30:00-04:00',
      '2026-11-01T01:30:00-05:00',
      '2026-11-02T01:30:00-05:00',
    ]);
    expect(warnings({ cron: '30 1 * * *', timezone: 'America/New_York' }, '2026-10-31T12:00:00Z')[0]).toEqual(
      {
        date: '2026-11-01',
        kind: 'twice',
        message:
          '2026-11-01 01:30 America/New_York happens twice (clocks go 02:00 -> 01:00): Temporal runs the job both times (e.g. 01:30 -04:00 and 01:30 -05:00)',
      },
    );
  });

  it('fall back east of UTC: a time in the repeated hour runs once, the hour before runs twice (Europe/Paris)', () => {
    // Go's time.Date picks the second 02:30 (CET) for a repeated time east of UTC, so "30 2" runs once;
    // but Temporal's replay of the hour before the change, shifted by +1h, makes "30 1" run at 02:30 CEST too.
    expect(local({ cron: '30 2 * * *', timezone: 'Europe/Paris' }, 2, '2026-10-24T12:00:00Z')).toEqual([
      '2026-10-25T02:30:00+01:00',
      '2026-10-26T02:30:00+01:00',
    ]);
    expect(local({ cron: '30 1 * * *', timezone: 'Europe/Paris' }, 3, '2026-10-24T12:00:00Z')).toEqual([
      '2026-10-25T01:30:00+02:00',
      '2026-10-25T02:30:00+02:00',
      '2026-10-26T01:30:00+01:00',
    ]);
    expect(warnings({ cron: '30 1 * * *', timezone: 'Europe/Paris' }, '2026-10-24T12:00:00Z')[0]).toEqual({
      date: '2026-10-25',
      kind: 'extra',
      message:
        '2026-10-25 Europe/Paris (clocks go 03:00 -> 02:00): Temporal also runs the job at 02:30 +02:00, which the trigger does not name: its repeated-hour handling runs the hour before the change again, one hour later',
    });
  });

  it('fall back east of UTC: a sub-hourly job loses runs (Europe/Paris, every 15 minutes)', () => {
    // After 02:00 CEST the search lands on 02:15 CET, whose "second copy" check then adds an hour.
    expect(local({ cron: '*/15 * * * *', timezone: 'Europe/Paris' }, 4, '2027-10-30T23:50:00Z')).toEqual([
      '2027-10-31T02:00:00+02:00',
      '2027-10-31T02:15:00+01:00',
      '2027-10-31T03:30:00+01:00',
      '2027-10-31T03:45:00+01:00',
    ]);
    expect(warnings({ cron: '*/15 * * * *', timezone: 'Europe/Paris' }, '2027-10-30T00:00:00Z')[0]).toEqual({
      date: '2027-10-31',
      kind: 'skipped',
      message:
        '2027-10-31 Europe/Paris (clocks go 03:00 -> 02:00): Temporal skips the runs at 02:30 +02:00 to 03:15 +01:00 (6 runs): its repeated-hour handling jumps ahead',
    });
  });

  it('a 30-minute gap keeps the hour, so Temporal runs the missing time later in it (Australia/Lord_Howe)', () => {
    expect(local({ cron: '15 2 * * *', timezone: 'Australia/Lord_Howe' }, 2, '2026-10-03T00:00:00Z')).toEqual(
      [
        '2026-10-04T02:45:00+11:00', // 02:15 does not exist: Go's time.Date moves it to 02:45, same hour
        '2026-10-05T02:15:00+11:00',
      ],
    );
    expect(
      warnings({ cron: '15 2 * * *', timezone: 'Australia/Lord_Howe' }, '2026-10-03T00:00:00Z')[0],
    ).toEqual({
      date: '2026-10-04',
      kind: 'shifted',
      message:
        '2026-10-04 02:15 Australia/Lord_Howe does not exist (clocks go 02:00 -> 02:30): Temporal runs it at 02:45 instead',
    });
  });

  it('a gap at midnight skips a daily midnight job (America/Santiago, 00:00 -> 01:00)', () => {
    expect(local({ cron: '@daily', timezone: 'America/Santiago' }, 2, '2026-09-05T12:00:00Z')).toEqual([
      '2026-09-07T00:00:00-03:00',
      '2026-09-08T00:00:00-03:00',
    ]);
  });

  it('a gap ends the hour after it: Pacific/Chatham loses 03:48, which exists, and the warning says so', () => {
    // 02:48 does not exist (02:45 -> 03:45) and ends hour 2; 03:00 does not exist either and ends hour 3
    // before 03:48. Warnings are read off the fire times, so the lost 03:48-03:56 are reported too.
    const trigger: Trigger = { cron: '*/4 2-3 * * *', timezone: 'Pacific/Chatham' };
    expect(local(trigger, 2, '2027-09-25T13:58:00Z')).toEqual([
      '2027-09-26T02:44:00+12:45',
      '2027-09-27T02:00:00+13:45',
    ]);
    const [w] = previewTrigger(trigger, 1, { from: '2027-09-01T00:00:00Z' }).dstWarnings;
    expect(w).toMatchObject({ date: '2027-09-26', kind: 'skipped' });
    expect(w!.message).toBe(
      '2027-09-26 02:48 to 03:44 (15 runs) Pacific/Chatham do not exist (clocks go 02:45 -> 03:45): Temporal skips these runs; ' +
        '2027-09-26 03:48, 03:52 and 03:56 Pacific/Chatham exist but Temporal skips them on the day clocks change (clocks go 02:45 -> 03:45)',
    );
    expect(w!.localTimes.slice(-3)).toEqual([
      '2027-09-26T03:48:00+13:45',
      '2027-09-26T03:52:00+13:45',
      '2027-09-26T03:56:00+13:45',
    ]);
    // A calendar whose first time in hour 3 exists keeps the hour: nothing to warn about.
    expect(warnings({ cron: '55 3 * * *', timezone: 'Pacific/Chatham' }, '2027-09-01T00:00:00Z')).toEqual([]);
  });

  it('a gap at midnight makes Temporal misread the weekday: a Sunday job skips that Sunday (America/Santiago, dst: {})', () => {
    // `dst: {}` keeps the server's raw reading; without it such a job is corrected (schedule-misread-default.test.ts).
    // Sunday 2026-09-06 00:00 does not exist; Temporal reads the weekday at midnight as Go's time.Date
    // resolves it, Saturday 23:00, so 09:00 (which exists) is skipped, and a Saturday job runs instead.
    expect(
      local({ cron: '0 9 * * SUN', timezone: 'America/Santiago', dst: {} }, 2, '2026-09-01T00:00:00Z'),
    ).toEqual(['2026-09-13T09:00:00-03:00', '2026-09-20T09:00:00-03:00']);
    expect(
      warnings({ cron: '0 9 * * SUN', timezone: 'America/Santiago', dst: {} }, '2026-08-01T00:00:00Z'),
    ).toEqual([
      {
        date: '2026-09-06',
        kind: 'skipped',
        message:
          '2026-09-06 09:00 America/Santiago exists but Temporal skips it on the day clocks change (clocks go 00:00 -> 01:00): ' +
          'Temporal reads the day of the week at local midnight, which does not exist that day, and takes 2026-09-06 for a Saturday',
      },
    ]);
    expect(
      warnings({ cron: '0 9 * * SAT', timezone: 'America/Santiago', dst: {} }, '2026-08-01T00:00:00Z'),
    ).toEqual([
      {
        date: '2026-09-06',
        kind: 'extra',
        message:
          '2026-09-06 America/Santiago (clocks go 00:00 -> 01:00): Temporal also runs the job at 09:00 -03:00, which the trigger does not name: ' +
          'Temporal reads the day of the week at local midnight, which does not exist that day, and takes 2026-09-06 for a Saturday',
      },
    ]);
  });

  it('the weekday is read again on leaving an hour: an hourly Saturday job does not run on that Sunday (Santiago)', () => {
    // Sunday 00:00 (read as Saturday) does not exist; leaving hour 0 the server reads 01:00, a Sunday.
    expect(local({ cron: '0 * * * SAT', timezone: 'America/Santiago' }, 3, '2026-09-06T02:30:00Z')).toEqual([
      '2026-09-05T23:00:00-04:00',
      '2026-09-12T00:00:00-03:00',
      '2026-09-12T01:00:00-03:00',
    ]);
    // Nothing to warn about in September; in April Saturday 23:00 happens twice and runs twice.
    expect(
      warnings({ cron: '0 * * * SAT', timezone: 'America/Santiago' }, '2026-08-01T00:00:00Z').map(
        (w) => w.date,
      ),
    ).toEqual(['2027-04-03']);
  });

  it('caps the times compared over a whole day, and says so (7-field cron every 10 s on Sundays, Santiago)', () => {
    // Whole days are compared when the weekday is misread; 8,640 runs a day are cut at 2,000 to stay fast.
    const [w, ...rest] = previewTrigger({ cron: '*/10 * * * * SUN *', timezone: 'America/Santiago' }, 1, {
      from: '2026-08-01T00:00:00Z',
    }).dstWarnings;
    expect(rest).toEqual([]);
    expect(w).toMatchObject({ date: '2026-09-06', kind: 'skipped' });
    expect(w!.localTimes).toHaveLength(2000);
    expect(w!.message).toBe(
      '2026-09-06 00:00:00 to 00:59:50 (360 runs) America/Santiago do not exist (clocks go 00:00 -> 01:00): Temporal skips these runs; ' +
        '2026-09-06 01:00:00 to 05:33:10 (1640 runs) America/Santiago exist but Temporal skips them on the day clocks change (clocks go 00:00 -> 01:00): ' +
        'Temporal reads the day of the week at local midnight, which does not exist that day, and takes 2026-09-06 for a Saturday ' +
        '(only the first 2,000 named times around this change were checked)',
    );
  });

  it('warns for every DST date in the 12 months after from, and only those', () => {
    // From 2026-11-01 00:00Z New York changes clocks on 2026-11-01 (06:00Z) and 2027-03-14; the next
    // change, 2027-11-07, is more than 12 months away. "0 * * * *" runs 01:00 twice, and skips 02:00.
    expect(warnings({ cron: '0 * * * *', timezone: 'America/New_York' }, '2026-11-01T00:00:00Z')).toEqual([
      {
        date: '2026-11-01',
        kind: 'twice',
        message:
          '2026-11-01 01:00 America/New_York happens twice (clocks go 02:00 -> 01:00): Temporal runs the job both times (e.g. 01:00 -04:00 and 01:00 -05:00)',
      },
      {
        date: '2027-03-14',
        kind: 'skipped',
        message:
          '2027-03-14 02:00 America/New_York does not exist (clocks go 02:00 -> 03:00): Temporal skips this run',
      },
    ]);
  });

  it('east of UTC an hourly job runs the repeated 02:00 once, in summer time (Europe/Paris)', () => {
    expect(local({ cron: '0 * * * *', timezone: 'Europe/Paris' }, 3, '2026-10-24T22:30:00Z')).toEqual([
      '2026-10-25T01:00:00+02:00',
      '2026-10-25T02:00:00+02:00',
      '2026-10-25T03:00:00+01:00',
    ]);
    expect(warnings({ cron: '0 * * * *', timezone: 'Europe/Paris' }, '2026-10-24T22:30:00Z')[0]?.date).toBe(
      '2027-03-28',
    );
  });

  it('no warning where DST changes nothing: a zone without DST, a job away from the change, an interval', () => {
    expect(warnings({ cron: '*/5 * * * *', timezone: 'Asia/Kolkata' }, '2027-01-01T00:00:00Z')).toEqual([]);
    expect(warnings({ cron: '0 9 * * *', timezone: 'Europe/Paris' }, '2027-01-01T00:00:00Z')).toEqual([]);
    // Intervals are counted in UTC: the local time moves by an hour, nothing is skipped or doubled.
    expect(warnings({ every: '1d', offset: '1h', timezone: 'Europe/Paris' }, '2027-01-01T00:00:00Z')).toEqual(
      [],
    );
    expect(local({ every: '1d', offset: '1h', timezone: 'Europe/Paris' }, 3, '2027-03-27T00:00:00Z')).toEqual(
      ['2027-03-27T02:00:00+01:00', '2027-03-28T03:00:00+02:00', '2027-03-29T03:00:00+02:00'],
    );
  });
});

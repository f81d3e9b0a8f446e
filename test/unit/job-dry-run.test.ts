import { describe, expect, it } from 'vitest';
import { dryRun, type DryRunJob } from '../../src/client/jobs/job-dry-run';
import type { DryRunOccurrence, DryRunOptions } from '../../src/schedule/dry-run-types';
import { InvalidWindowError } from '../../src/schedule/errors';

/*
 * dryRun's decisions, one table row per rule (docs/testing.md lists them). Each occurrence is written
 * `<nominal HH:MM> <decision>[:<reason>][@<startsAt HH:MM>][ for <standsFor>][ into <coalescedInto>]`, UTC.
 */

const hhmm = (iso: string) => iso.slice(11, 16);

function line(o: DryRunOccurrence): string {
  return [
    `${hhmm(o.nominal)} ${o.decision}${o.reason ? `:${o.reason}` : ''}`,
    o.startsAt ? `@${hhmm(o.startsAt)}` : '',
    o.standsFor ? ` for ${hhmm(o.standsFor)}` : '',
    o.coalescedInto ? ` into ${hhmm(o.coalescedInto)}` : '',
  ].join('');
}

const DAY = '2027-01-01';
const at = (time: string) => `${DAY}T${time}:00Z`;
const window = (fromTime: string, toTime: string, rest: Partial<DryRunOptions> = {}): DryRunOptions => ({
  from: at(fromTime),
  to: at(toTime),
  ...rest,
});

interface Row {
  rule: string;
  job: DryRunJob;
  opts: DryRunOptions;
  expected: string[];
}

const rows: Row[] = [
  {
    rule: 'no assumptions: every occurrence runs at its nominal time',
    job: { every: '15m' },
    opts: window('00:00', '01:00'),
    expected: ['00:15 run@00:15', '00:30 run@00:30', '00:45 run@00:45', '01:00 run@01:00'],
  },
  {
    rule: 'overlap SKIP (coalesce: true): runDuration longer than the interval skips the occurrences it overlaps',
    job: { every: '10m' },
    opts: window('00:00', '01:00', { runDuration: '25m' }),
    expected: [
      '00:10 run@00:10',
      '00:20 skip:overlap',
      '00:30 skip:overlap',
      '00:40 run@00:40', // 00:10 + 25m = 00:35: closed by then
      '00:50 skip:overlap',
      '01:00 skip:overlap',
    ],
  },
  {
    rule: 'coalesce: the run that waited for a worker stands for the latest occurrence due by then (within the grace: runs)',
    job: { every: '10m', misfireGraceTime: '15m' },
    opts: window('00:00', '01:30', { workersDown: [{ from: at('00:25'), to: at('01:05') }] }),
    expected: [
      '00:10 run@00:10',
      '00:20 run@00:20',
      '00:30 run@01:05 for 01:00', // 35 min late by its own time, 5 min after 01:00
      '00:40 coalesced into 00:30',
      '00:50 coalesced into 00:30',
      '01:00 coalesced into 00:30',
      '01:10 run@01:10',
      '01:20 run@01:20',
      '01:30 run@01:30',
    ],
  },
  {
    rule: 'coalesce: the latest occurrence is past the grace too: misfire, standing for it',
    job: { every: '10m', misfireGraceTime: '2m' },
    opts: window('00:00', '00:50', { workersDown: [{ from: at('00:25'), to: at('00:48') }] }),
    expected: [
      '00:10 run@00:10',
      '00:20 run@00:20',
      '00:30 skip:misfire for 00:40', // judged at 00:48, 8 min after 00:40
      '00:40 coalesced into 00:30',
      '00:50 run@00:50',
    ],
  },
  {
    rule: 'coalesce without a misfire grace: the waiting run runs, standing for nothing the guard records',
    job: { every: '10m' },
    opts: window('00:00', '00:50', { workersDown: [{ from: at('00:25'), to: at('00:48') }] }),
    expected: [
      '00:10 run@00:10',
      '00:20 run@00:20',
      '00:30 run@00:48',
      '00:40 coalesced into 00:30',
      '00:50 run@00:50',
    ],
  },
  {
    rule: 'misfire (coalesce: false, BUFFER_ALL): workers down past the grace skip the old occurrences, the rest queue',
    job: { every: '10m', coalesce: false, misfireGraceTime: '15m' },
    opts: window('00:00', '01:20', {
      runDuration: '2m',
      workersDown: [{ from: at('00:25'), to: at('01:05') }],
    }),
    expected: [
      '00:10 run@00:10',
      '00:20 run@00:20',
      '00:30 skip:misfire', // judged at 01:05: 35 min late
      '00:40 skip:misfire', // 25 min
      '00:50 buffered@01:05', // 15 min: within the grace
      '01:00 buffered@01:07', // after 00:50's 2 minutes
      '01:10 run@01:10',
      '01:20 run@01:20',
    ],
  },
  {
    rule: 'BUFFER_ALL with runs longer than the interval: the queue grows until the grace skips them',
    job: { every: '10m', coalesce: false, misfireGraceTime: '12m' },
    opts: window('00:00', '00:50', { runDuration: '15m' }),
    expected: [
      '00:10 run@00:10',
      '00:20 buffered@00:25',
      '00:30 buffered@00:40', // 10 min late: within 12
      '00:40 skip:misfire', // its turn at 00:55: 15 min late
      '00:50 buffered@00:55',
    ],
  },
  {
    rule: 'BUFFER_ONE holds one occurrence and drops the rest',
    job: { every: '10m', overlap: 'BUFFER_ONE' },
    opts: window('00:00', '00:40', { runDuration: '35m' }),
    expected: ['00:10 run@00:10', '00:20 buffered@00:45', '00:30 skip:overlap', '00:40 skip:overlap'],
  },
  {
    rule: 'TERMINATE_OTHER ends the run in flight and starts the new one at once',
    job: { every: '10m', overlap: 'TERMINATE_OTHER' },
    opts: window('00:00', '00:30', { runDuration: '15m' }),
    expected: ['00:10 run@00:10', '00:20 run@00:20', '00:30 run@00:30'],
  },
  {
    rule: 'maxInstances 2: a run that finds two runs holding a slot skips itself',
    job: { every: '10m', maxInstances: 2 },
    opts: window('00:00', '01:00', { runDuration: '25m' }),
    expected: [
      '00:10 run@00:10',
      '00:20 run@00:20',
      '00:30 skip:max-instances',
      '00:40 run@00:40', // 00:10's slot freed at 00:35
      '00:50 run@00:50',
      '01:00 skip:max-instances',
    ],
  },
  {
    rule: 'maxInstances 2 after an outage: the waiting runs are judged together, two get a slot',
    job: { every: '10m', maxInstances: 2, misfireGraceTime: '1h' },
    opts: window('00:00', '00:30', {
      runDuration: '5m',
      workersDown: [{ from: at('00:05'), to: at('00:35') }],
    }),
    expected: ['00:10 run@00:35', '00:20 run@00:35', '00:30 skip:max-instances'],
  },
  {
    rule: 'a paused job starts nothing',
    job: { every: '30m', paused: true },
    opts: window('00:00', '01:00'),
    expected: ['00:30 skip:paused', '01:00 skip:paused'],
  },
  {
    rule: 'endAt bounds the occurrences as the spec does',
    job: { every: '10m', endAt: at('00:30') },
    opts: window('00:00', '01:00'),
    expected: ['00:10 run@00:10', '00:20 run@00:20', '00:30 run@00:30'],
  },
];

describe('dryRun: one rule per row', () => {
  it.each(rows)('$rule', ({ job, opts, expected }) => {
    expect(dryRun(job, opts).occurrences.map(line)).toEqual(expected);
  });

  it('reports how late a judged run is, after the occurrence it stands for', () => {
    const out = dryRun(rows[3]!.job, rows[3]!.opts).occurrences[2]!;
    expect(out).toMatchObject({ judgedAt: at('00:48'), lateMs: 8 * 60_000, standsFor: at('00:40') });
  });

  it('counts the decisions', () => {
    expect(dryRun(rows[1]!.job, rows[1]!.opts).totals).toEqual({ run: 2, 'skip:overlap': 4 });
  });
});

describe('dryRun: DST policy and exclusions', () => {
  it("lists Temporal's fire that the DST policy does not run as a dst skip, beside the DST warning", () => {
    // Paris 01:30 on the fall-back day: Temporal also fires 02:30 CEST; overlap 'once' has the guard skip it.
    const r = dryRun(
      { cron: '30 1 * * *', timezone: 'Europe/Paris', dst: { gap: 'shift', overlap: 'once' } },
      { from: '2027-10-29T00:00:00Z', to: '2027-11-02T00:00:00Z' },
    );
    expect(r.occurrences.map((o) => `${o.local} ${o.decision}${o.reason ? `:${o.reason}` : ''}`)).toEqual([
      '2027-10-30T01:30:00+02:00 run',
      '2027-10-31T01:30:00+02:00 run',
      '2027-10-31T02:30:00+02:00 skip:dst',
      '2027-11-01T01:30:00+01:00 run',
    ]);
    expect(r.dstWarnings.map((w) => [w.date, w.kind])).toEqual([['2027-10-31', 'corrected']]); // the policy only undid Temporal's extra run
  });

  it('shifts a run out of a spring-forward gap with gap: shift', () => {
    const r = dryRun(
      { cron: '30 2 * * *', timezone: 'Europe/Paris', dst: { gap: 'shift' } },
      { from: '2027-03-27T00:00:00Z', to: '2027-03-29T12:00:00Z' },
    );
    expect(r.occurrences.map((o) => `${o.local} ${o.decision}`)).toEqual([
      '2027-03-27T02:30:00+01:00 run',
      '2027-03-28T03:00:00+02:00 run', // 02:30 does not exist: the first instant after the gap
      '2027-03-29T02:30:00+02:00 run',
    ]);
  });

  it('leaves out excluded dates and reports them', () => {
    const r = dryRun(
      { cron: '0 9 * * *', exclude: ['2027-01-03', { from: '2027-01-05', to: '2027-01-06' }] },
      { from: at('00:00'), to: '2027-01-08T00:00:00Z' },
    );
    expect(r.occurrences.map((o) => o.nominal.slice(0, 10))).toEqual([
      '2027-01-01',
      '2027-01-02',
      '2027-01-04',
      '2027-01-07',
    ]);
    expect(r.excludedDates.map((d) => d.date)).toEqual(['2027-01-03', '2027-01-05', '2027-01-06']);
  });
});

describe('dryRun: a bad window is a typed error', () => {
  const bad: [string, DryRunOptions, string, RegExp][] = [
    ['to before from', window('01:00', '00:00'), 'to', /"to" \(2027-01-01T00:00:00Z\) must be after "from"/],
    ['to equal to from', window('01:00', '01:00'), 'to', /must be after "from"/],
    ['from not an instant', { from: 'yesterday', to: at('01:00') }, 'from', /is not an instant/],
    [
      'more than 1,000 occurrences',
      { from: at('00:00'), to: '2027-01-02T00:00:00Z' },
      'to',
      /holds more than 1,000 occurrences of this job \(the 1,000th is at 2027-01-01T16:40:00Z\)/,
    ],
    [
      'a workersDown span that ends before it starts',
      window('00:00', '01:00', { workersDown: [{ from: at('00:30'), to: at('00:10') }] }),
      'workersDown[0].to',
      /workersDown\[0\]\.to must be after its from/,
    ],
  ];
  it.each(bad)('%s', (_name, opts, field, message) => {
    const run = () => dryRun({ every: '1m' }, opts);
    expect(run).toThrow(InvalidWindowError);
    expect(run).toThrow(message);
    try {
      run();
    } catch (err) {
      expect((err as InvalidWindowError).field).toBe(field);
      expect((err as InvalidWindowError).code).toBe('INVALID_WINDOW');
    }
  });

  it('refuses a bad runDuration and an unknown job option', () => {
    expect(() => dryRun({ every: '1m' }, window('00:00', '01:00', { runDuration: 'soon' }))).toThrow(
      /runDuration "soon" is not a duration/,
    );
    expect(() => dryRun({ every: '1m', retries: 3 } as DryRunJob, window('00:00', '01:00'))).toThrow(
      /unknown job option "retries"/,
    );
  });
});

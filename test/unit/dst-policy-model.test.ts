import fc from 'fast-check';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { InvalidPolicyError } from '../../src/schedule/errors';
import { previewTrigger } from '../../src/schedule/preview';
import { fuzzParams, fuzzRuns } from '../helpers/fuzz';
import {
  calendarOf,
  clockChanges,
  cronOf,
  DST_ZONES,
  modelPolicyArb,
  modelTimes,
  namedTimesArb,
} from '../helpers/dst-model';

/*
 * The DST policy's times (preview) against the independent model (test/helpers/dst-model.ts), without a
 * server: generated jobs in 22 zones, each checked in a window around every clock change of its zone in
 * 2027-2029 (three years of dates), plus an ordinary window. The server side is
 * test/integration/dst-policy-matching-times.test.ts.
 */

const FROM = Date.UTC(2027, 0, 1) / 1000;
const TO = Date.UTC(2030, 0, 1) / 1000;
const iso = (t: number) => new Date(t * 1000).toISOString().replace('.000Z', 'Z');

describe('DST policy: preview equals the first-principles model', () => {
  it('for generated jobs over every clock change of 2027-2029 (90 jobs, 500+ windows; FUZZ_RUNS for more)', async () => {
    let windows = 0;
    // Async, yielding before each job: a test that holds the event loop for long starves the test runner's
    // messages (vitest's "Timeout calling onTaskUpdate", which fails the whole run).
    await fc.assert(
      fc.asyncProperty(
        namedTimesArb,
        fc.constantFrom(...DST_ZONES),
        modelPolicyArb,
        fc.boolean(),
        async (named, timezone, dst, asCron) => {
          await yieldToLoop();
          const trigger = asCron
            ? { cron: cronOf(named), timezone, dst }
            : { calendar: calendarOf(named), timezone, dst };
          const starts = [...clockChanges(timezone, FROM, TO).map((t) => t - 86_400), FROM + 40 * 86_400];
          for (const from of starts) {
            const to = from + 2 * 86_400;
            const expected = modelTimes(named, timezone, dst, from, to).map(iso);
            const got = previewTrigger(trigger, expected.length + 1, { from: iso(from) }).fireTimes.map(
              (f) => f.utc,
            );
            expect(got.slice(0, expected.length), JSON.stringify({ trigger, from: iso(from) })).toEqual(
              expected,
            );
            expect(got[expected.length]! > iso(to), JSON.stringify({ trigger, from: iso(from) })).toBe(true);
            windows++;
          }
        },
      ),
      fuzzParams(90, { interruptAfterTimeLimit: 600_000 }),
    );
    console.log(`DST policy model: ${windows} windows checked`);
    // The suite's 90 jobs give 500+ windows (zones without DST give one each); FUZZ_RUNS changes the count.
    expect(windows).toBeGreaterThan(fuzzRuns(90) === 90 ? 500 : fuzzRuns(90) - 1);
  }, 600_000);
});

describe('DST policy: worked examples', () => {
  const local = (trigger: object, n: number, from: string) =>
    previewTrigger(trigger as never, n, { from }).fireTimes.map((f) => f.local);

  it('gap shift runs Paris 02:30 at 03:00 on 2027-03-28, once', () => {
    expect(
      local(
        { cron: '30 2 * * *', timezone: 'Europe/Paris', dst: { gap: 'shift' } },
        3,
        '2027-03-27T00:00:00Z',
      ),
    ).toEqual(['2027-03-27T02:30:00+01:00', '2027-03-28T03:00:00+02:00', '2027-03-29T02:30:00+02:00']);
  });

  it('overlap once: Paris */15 runs 02:00-02:45 CEST and no CET 02:xx, and drops nothing', () => {
    expect(
      local(
        { cron: '*/15 * * * *', timezone: 'Europe/Paris', dst: { overlap: 'once' } },
        7,
        '2027-10-31T00:50:00+02:00',
      ),
    ).toEqual([
      '2027-10-31T01:00:00+02:00',
      '2027-10-31T01:15:00+02:00',
      '2027-10-31T01:30:00+02:00',
      '2027-10-31T01:45:00+02:00',
      '2027-10-31T02:00:00+02:00',
      '2027-10-31T02:15:00+02:00',
      '2027-10-31T02:30:00+02:00',
    ]);
    expect(
      local(
        { cron: '*/15 * * * *', timezone: 'Europe/Paris', dst: { overlap: 'once' } },
        3,
        '2027-10-31T02:40:00+02:00',
      ),
    ).toEqual(['2027-10-31T02:45:00+02:00', '2027-10-31T03:00:00+01:00', '2027-10-31T03:15:00+01:00']);
  });

  it('overlap once: Paris 01:30 has no extra 02:30 CEST on the fall-back day, and a warning says so', () => {
    const p = previewTrigger({ cron: '30 1 * * *', timezone: 'Europe/Paris', dst: { overlap: 'once' } }, 2, {
      from: '2027-10-30T12:00:00Z',
    });
    expect(p.fireTimes.map((f) => f.local)).toEqual([
      '2027-10-31T01:30:00+02:00',
      '2027-11-01T01:30:00+01:00',
    ]);
    expect(p.dstWarnings[0]).toMatchObject({ date: '2027-10-31', kind: 'corrected' });
    expect(p.dstWarnings[0]!.message).toContain(
      'the run guard skips its own run at 02:30 +02:00 (reason dst)',
    );
  });

  it('New York 01:30 with overlap twice runs at both instants, with once at the first', () => {
    const from = '2027-11-06T12:00:00Z';
    expect(
      local({ cron: '30 1 * * *', timezone: 'America/New_York', dst: { overlap: 'twice' } }, 2, from),
    ).toEqual(['2027-11-07T01:30:00-04:00', '2027-11-07T01:30:00-05:00']);
    expect(
      local({ cron: '30 1 * * *', timezone: 'America/New_York', dst: { overlap: 'once' } }, 2, from),
    ).toEqual(['2027-11-07T01:30:00-04:00', '2027-11-08T01:30:00-05:00']);
  });

  it("a side left out keeps Temporal: no dst is today's behaviour, and the default policy applies", () => {
    const paris = { cron: '30 2 * * *', timezone: 'Europe/Paris' };
    expect(local(paris, 2, '2027-03-27T12:00:00Z')).toEqual([
      '2027-03-29T02:30:00+02:00',
      '2027-03-30T02:30:00+02:00',
    ]);
    expect(
      previewTrigger(paris, 1, { from: '2027-03-27T12:00:00Z', defaultDst: { gap: 'shift' } }).fireTimes[0]!
        .local,
    ).toBe('2027-03-28T03:00:00+02:00');
  });

  it('refuses a bad policy with the field and what to write', () => {
    const bad = (dst: unknown) => () =>
      previewTrigger({ cron: '0 2 * * *', dst } as never, 1, { from: '2027-01-01T00:00:00Z' });
    expect(bad({ gap: 'later' })).toThrow(InvalidPolicyError);
    expect(bad({ gap: 'later' })).toThrow(
      `dst.gap must be 'skip' or 'shift' (or left out for Temporal's own behaviour), got "later"`,
    );
    expect(bad({ overlp: 'once' })).toThrow('dst has only "gap" and "overlap", got "overlp"');
    expect(() => previewTrigger({ every: '1h', dst: { gap: 'shift' } } as never, 1)).toThrow(
      'dst applies to cron and calendar triggers',
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileTrigger } from '../../src/schedule/compile-trigger';
import { withEntries } from '../../src/schedule/dst-compile';
import { planDstBackfill, type DstBackfill } from '../../src/schedule/dst-backfill';
import { FireTimes } from '../../src/schedule/fire-times';
import { previewTrigger } from '../../src/schedule/preview';
import type { Trigger } from '../../src/schedule/trigger-types';
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
 * The plan of a backfill under a DST policy (src/schedule/dst-backfill.ts) against the model of the
 * server (FireTimes, which test/integration/dst-backfill-matching-times.test.ts holds to the server) and
 * the independent DST model (test/helpers/dst-model.ts), without a server: generated jobs in 22 zones,
 * a window around each clock change of 2024-2026 (dates before any horizon a job written today has),
 * starting and ending anywhere near it, inside a repeated hour too. What the server fires in the plan's
 * parts, with the plan's entries in the spec, is exactly the policy's times in the window: those preview
 * lists and the model computes.
 */

const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
const FROM = Date.UTC(2024, 0, 1) / 1000;
/** The generated jobs' time: well above the 0.5 s a job takes here, so that a long run is not cut short. */
const BUDGET_MS = Math.max(600_000, fuzzRuns(40) * 2_000);
const TO = Date.UTC(2026, 11, 1) / 1000;

/** What the server fires for the plan: each part, as Temporal's backfill walks it (both ends included). */
function backfilledBy(fire: FireTimes, plan: DstBackfill): number[] {
  const server = new FireTimes(withEntries(fire.spec, plan.dst.entries));
  const out: number[] = [];
  for (const part of plan.parts) {
    for (
      let t = server.next(Math.ceil(part.startMs / 1000) - 1);
      t !== undefined && t * 1000 <= part.endMs;
      t = server.next(t)
    ) {
      out.push(t);
    }
  }
  return out;
}

function plan(trigger: Trigger, from: string, to: string) {
  const compiled = compileTrigger(trigger, 'UTC');
  const fire = new FireTimes(compiled.fire);
  const p = planDstBackfill(fire, compiled.dst!, Date.parse(from), Date.parse(to));
  return { plan: p, backfilled: backfilledBy(fire, p).map(iso) };
}

const part = (start: string, end: string) => ({ startMs: Date.parse(start), endMs: Date.parse(end) });

describe('backfill under a DST policy: worked examples', () => {
  it('gap shift (Paris 02:30, 2026-03-29): one part, the shifted run named by a calendar entry', () => {
    const { plan: p, backfilled } = plan(
      { cron: '30 2 * * *', timezone: 'Europe/Paris', dst: { gap: 'shift' } },
      '2026-03-28T12:00:00Z',
      '2026-03-30T12:00:00Z',
    );
    expect(p.parts).toEqual([part('2026-03-28T12:00:00Z', '2026-03-30T12:00:00Z')]);
    expect(p.dst.entries.map((e) => ('spec' in e ? e.spec : e))).toEqual([
      { year: 2026, month: 'MARCH', dayOfMonth: 29, hour: 3, minute: 0, second: 0 },
    ]);
    expect(backfilled).toEqual(['2026-03-29T01:00:00Z', '2026-03-30T00:30:00Z']);
  });

  it('overlap once (New York 01:30, 2026-11-01): no entry, the window cut around the 01:30 EST fire', () => {
    const { plan: p, backfilled } = plan(
      { cron: '30 1 * * *', timezone: 'America/New_York', dst: { overlap: 'once' } },
      '2026-10-31T12:00:00Z',
      '2026-11-02T12:00:00Z',
    );
    expect(p.dst.entries).toEqual([]);
    expect(p.parts).toEqual([
      part('2026-10-31T12:00:00Z', '2026-11-01T06:29:59.999Z'),
      part('2026-11-01T06:30:00.001Z', '2026-11-02T12:00:00Z'),
    ]);
    expect(backfilled).toEqual(['2026-11-01T05:30:00Z', '2026-11-02T06:30:00Z']);
  });

  it('a window that starts inside the repeated hour starts its part just after a fire of the sequence', () => {
    // Temporal would fire 01:30 EST (06:30Z) from 06:00Z: the policy runs 01:30 once, at 05:30Z.
    const { plan: p, backfilled } = plan(
      { cron: '30 1 * * *', timezone: 'America/New_York', dst: { overlap: 'once' } },
      '2026-11-01T06:00:00Z',
      '2026-11-02T12:00:00Z',
    );
    expect(p.parts).toEqual([part('2026-11-01T06:30:00.001Z', '2026-11-02T12:00:00Z')]);
    expect(backfilled).toEqual(['2026-11-02T06:30:00Z']);
  });

  it('a window with no clock change near it is Temporal’s window as given, with nothing to add', () => {
    const { plan: p, backfilled } = plan(
      { cron: '30 2 * * *', timezone: 'Europe/Paris', dst: { gap: 'shift', overlap: 'once' } },
      '2026-06-10T00:00:00.250Z',
      '2026-06-12T00:30:00Z',
    );
    expect(p).toMatchObject({ parts: [part('2026-06-10T00:00:00.250Z', '2026-06-12T00:30:00Z')] });
    expect(p.dst.entries).toEqual([]);
    expect(backfilled).toEqual(['2026-06-10T00:30:00Z', '2026-06-11T00:30:00Z', '2026-06-12T00:30:00Z']);
  });
});

describe('backfill under a DST policy: the server fires what preview and the model list', () => {
  it(
    'for generated jobs over every clock change of 2024-2026 (40 jobs; FUZZ_RUNS for more)',
    async () => {
      let windows = 0;
      const HOUR = 3600;
      await fc.assert(
        fc.asyncProperty(
          namedTimesArb,
          fc.constantFrom(...DST_ZONES),
          modelPolicyArb,
          fc.boolean(),
          // Where each window starts (from 30 h before the change to 4 h after it) and how long it is.
          fc.array(
            fc.record({
              start: fc.integer({ min: -30 * HOUR, max: 4 * HOUR }),
              length: fc.integer({ min: HOUR, max: 50 * HOUR }),
            }),
            { minLength: 8, maxLength: 8 },
          ),
          async (named, timezone, dst, asCron, shapes) => {
            // A long run is all computation: let the test runner's messages through between jobs.
            await new Promise((resolve) => setImmediate(resolve));
            const trigger: Trigger = asCron
              ? { cron: cronOf(named), timezone, dst }
              : { calendar: calendarOf(named), timezone, dst };
            const changes = clockChanges(timezone, FROM, TO);
            const starts = changes.length > 0 ? changes : [FROM + 40 * 86_400];
            starts.forEach((change, i) => {
              const shape = shapes[i % shapes.length]!;
              const [from, to] = [change + shape.start, change + shape.start + shape.length];
              const what = JSON.stringify({ trigger, from: iso(from), to: iso(to) });
              // Temporal's window includes `from`: the model's and preview's `(from - 1, to]`.
              const expected = modelTimes(named, timezone, dst, from - 1, to).map(iso);
              const preview = previewTrigger(trigger, expected.length + 1, { from: iso(from - 1) });
              const { plan: p, backfilled } = plan(trigger, iso(from), iso(to));
              expect(backfilled, what).toEqual(expected);
              expect(
                preview.fireTimes.slice(0, expected.length).map((f) => f.utc),
                what,
              ).toEqual(expected);
              for (let k = 1; k < p.parts.length; k++) {
                expect(p.parts[k]!.startMs, what).toBeGreaterThan(p.parts[k - 1]!.endMs);
              }
              windows++;
            });
          },
        ),
        fuzzParams(40, { interruptAfterTimeLimit: BUDGET_MS }),
      );
      console.log(`DST backfill plans: ${windows} windows checked`);
      expect(windows).toBeGreaterThan(fuzzRuns(40) === 40 ? 150 : fuzzRuns(40) - 1);
    },
    BUDGET_MS + 60_000,
  );
});

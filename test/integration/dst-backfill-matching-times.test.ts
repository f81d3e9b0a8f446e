import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScheduleSpec } from '@temporalio/client';
import { compileTrigger } from '../../src/schedule/compile-trigger';
import { planDstBackfill } from '../../src/schedule/dst-backfill';
import { dstScheduleSpec } from '../../src/schedule/dst-compile';
import { FireTimes } from '../../src/schedule/fire-times';
import { previewTrigger } from '../../src/schedule/preview';
import type { Trigger } from '../../src/schedule/trigger-types';
import {
  calendarOf,
  clockChanges,
  cronOf,
  DST_ZONES,
  modelPolicyArb,
  modelTimes,
  namedTimesArb,
  type ModelPolicy,
  type NamedTimes,
} from '../helpers/dst-model';
import { fuzzParams, fuzzRuns } from '../helpers/fuzz';
import { serverTimesOfSpec } from '../helpers/matching-times';
import { connectTest, type TestContext } from '../helpers/temporal';

/*
 * A backfill under a DST policy, on the server's own algorithm: a job written now (its spec with the
 * policy's horizon from today) gets the plan's entries for a past window, as backfillJob writes them,
 * and ListScheduleMatchingTimes (which walks a window exactly as a backfill does) is asked for each of
 * the plan's parts. Together they are exactly the policy's times in the window: preview's, and the
 * independent model's (test/helpers/dst-model.ts). Windows sit around every clock change of 2024-2026,
 * before any horizon a job written today has, and start and end anywhere near the change. The runs a
 * real backfill starts are test/integration/scheduler-dst-backfill.test.ts.
 */

let t: TestContext;
beforeAll(async () => {
  t = await connectTest('dst-backfill-times');
});
afterAll(async () => t?.close());

const FROM = Date.UTC(2024, 0, 1) / 1000;
const TO = Date.UTC(2026, 11, 1) / 1000;
const HOUR = 3600;
/** The generated jobs' time: well above the 1.2 s a job takes here, so that a long run is not cut short. */
const BUDGET_MS = Math.max(600_000, fuzzRuns(25) * 3_000);
const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');

interface Shape {
  /** Seconds from the clock change to the window's start. */
  start: number;
  length: number;
}

/** Checks one job over a window per clock change; returns the number of windows compared. */
async function check(
  named: NamedTimes,
  timezone: string,
  dst: ModelPolicy,
  asCron: boolean,
  shapes: readonly Shape[],
): Promise<number> {
  const trigger: Trigger = asCron
    ? { cron: cronOf(named), timezone, dst }
    : { calendar: calendarOf(named), timezone, dst };
  const compiled = compileTrigger(trigger, 'UTC');
  const fire = new FireTimes(compiled.fire);
  const written = dstScheduleSpec(compiled, new Date()).spec;
  const changes = clockChanges(timezone, FROM, TO);
  const windows = (changes.length > 0 ? changes : [FROM + 40 * 86_400]).map((change, i) => {
    const shape = shapes[i % shapes.length]!;
    return { from: change + shape.start, to: change + shape.start + shape.length };
  });
  let checked = 0;
  for (const { from, to } of windows) {
    const plan = planDstBackfill(fire, compiled.dst!, from * 1000, to * 1000);
    const spec: ScheduleSpec = {
      ...written,
      calendars: [
        ...(written.calendars ?? []),
        ...plan.dst.entries.flatMap((e) => ('spec' in e ? [e.spec] : [])),
      ],
      intervals: [
        ...(written.intervals ?? []),
        ...plan.dst.entries.flatMap((e) =>
          'interval' in e ? [{ every: e.interval.everySec * 1000, offset: e.interval.offsetSec * 1000 }] : [],
        ),
      ],
    };
    // A backfill's start is included: ListScheduleMatchingTimes's window starts just before it.
    const parts = plan.parts.map((p) => ({
      from: new Date(p.startMs - 1).toISOString(),
      to: new Date(p.endMs).toISOString(),
    }));
    const server = parts.length > 0 ? (await serverTimesOfSpec(t, spec, parts)).flat() : [];
    const what = JSON.stringify({ trigger, from: iso(from), to: iso(to) });
    const model = modelTimes(named, timezone, dst, from - 1, to).map(iso);
    const preview = previewTrigger(trigger, model.length + 1, { from: iso(from - 1) }).fireTimes;
    expect(server, what).toEqual(model);
    expect(
      preview.slice(0, model.length).map((f) => f.utc),
      what,
    ).toEqual(model);
    checked++;
  }
  return checked;
}

const shapeArb = fc.array(
  fc.record({
    start: fc.integer({ min: -30 * HOUR, max: 4 * HOUR }),
    length: fc.integer({ min: HOUR, max: 50 * HOUR }),
  }),
  { minLength: 8, maxLength: 8 },
);

describe('DST backfill: the server fires, in the plan’s parts, exactly what preview and the model list', () => {
  const every = [...Array(24).keys()];
  const fixed: [NamedTimes, string][] = [
    [{ minutes: [30], hours: [2] }, 'Europe/Paris'],
    [{ minutes: [15], hours: [2] }, 'Europe/Paris'],
    [{ minutes: [0, 15, 30, 45], hours: every }, 'Europe/Paris'],
    [{ minutes: [30], hours: [1] }, 'America/New_York'],
    [{ minutes: [0, 30], hours: every, weekdays: [6] }, 'America/Santiago'],
    [{ minutes: [0, 48], hours: [2, 3] }, 'Pacific/Chatham'],
    [{ minutes: [0, 15, 45], hours: [1, 2] }, 'Australia/Lord_Howe'],
  ];
  const policies: ModelPolicy[] = [
    { gap: 'shift', overlap: 'once' },
    { gap: 'skip', overlap: 'twice' },
  ];
  // Around the change: two whole days, a start inside its hour, a start after it, an end inside it.
  const shapes: Shape[] = [
    { start: -30 * HOUR, length: 48 * HOUR },
    { start: -HOUR / 2, length: 3 * HOUR },
    { start: HOUR / 4, length: 30 * HOUR },
    { start: -20 * HOUR, length: 20 * HOUR + 1800 },
  ];

  it('for the issue’s zones and policies, in windows of four shapes', async () => {
    let windows = 0;
    for (const [named, zone] of fixed) {
      for (const p of policies) windows += await check(named, zone, p, true, shapes);
    }
    console.log(`DST backfill on the server, fixed jobs: ${windows} windows checked`);
    expect(windows).toBeGreaterThan(70);
  }, 600_000);

  it(
    'for generated jobs in 22 zones (FUZZ_RUNS jobs, 25 by default)',
    async () => {
      let windows = 0;
      await fc.assert(
        fc.asyncProperty(
          namedTimesArb,
          fc.constantFrom(...DST_ZONES),
          modelPolicyArb,
          fc.boolean(),
          shapeArb,
          async (named, zone, p, asCron, shapes) => {
            windows += await check(named, zone, p, asCron, shapes);
          },
        ),
        fuzzParams(25, { interruptAfterTimeLimit: BUDGET_MS }),
      );
      console.log(`DST backfill on the server: ${windows} windows checked`);
      expect(windows).toBeGreaterThan(fuzzRuns(25) === 25 ? 100 : fuzzRuns(25) - 1);
    },
    BUDGET_MS + 60_000,
  );
});

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileTrigger } from '../../src/schedule/compile-trigger';
import { dstScheduleSpec } from '../../src/schedule/dst-compile';
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
 * The DST policy on the server: a job's spec with its policy applied (dstScheduleSpec, written on
 * 2027-01-01 so its horizon covers 2027-2029) is asked for ListScheduleMatchingTimes around every clock
 * change of its zone in 2027-2029 and on an ordinary day; less the run guard's `dst` skips, that is
 * exactly `preview`, and exactly the independent model (test/helpers/dst-model.ts). The six zones the
 * issue names are checked with fixed jobs; generated jobs cover the 22 zones. FUZZ_SEED replays a
 * failure, FUZZ_RUNS=N checks N generated jobs (`npm run fuzz:dst`).
 */

let t: TestContext;
beforeAll(async () => {
  t = await connectTest('dst-policy');
});
afterAll(async () => t?.close());

const WRITTEN = new Date('2027-01-01T00:00:00Z');
const FROM = WRITTEN.getTime() / 1000;
const TO = Date.UTC(2030, 0, 1) / 1000;
const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');

/** Checks one job; returns the number of windows compared. */
async function check(
  named: NamedTimes,
  timezone: string,
  dst: ModelPolicy,
  asCron: boolean,
): Promise<number> {
  const trigger: Trigger = asCron
    ? { cron: cronOf(named), timezone, dst }
    : { calendar: calendarOf(named), timezone, dst };
  const { spec, dst: compiled } = dstScheduleSpec(compileTrigger(trigger, 'UTC'), WRITTEN);
  const skips = new Set(compiled?.skips ?? []);
  const windows = [...clockChanges(timezone, FROM, TO).map((s) => s - 86_400), FROM + 40 * 86_400].map(
    (from) => ({ from: iso(from), to: iso(from + 2 * 86_400) }),
  );
  const server = await serverTimesOfSpec(t, spec, windows);
  windows.forEach(({ from, to }, i) => {
    const what = JSON.stringify({ trigger, from });
    const started = server[i]!.filter((s) => !skips.has(s));
    const model = modelTimes(named, timezone, dst, Date.parse(from) / 1000, Date.parse(to) / 1000).map(iso);
    const preview = previewTrigger(trigger, model.length + 1, { from }).fireTimes.map((f) => f.utc);
    expect(started, what).toEqual(model);
    expect(preview.slice(0, model.length), what).toEqual(model);
    expect(preview[model.length]! > to, what).toBe(true);
  });
  return windows.length;
}

describe('DST policy: ListScheduleMatchingTimes less the dst skips equals preview and the model', () => {
  const every = [...Array(24).keys()];
  const fixed: [NamedTimes, string][] = [
    [{ minutes: [30], hours: [2] }, 'Europe/Paris'],
    [{ minutes: [30], hours: [1] }, 'Europe/Paris'],
    [{ minutes: [0, 15, 30, 45], hours: every }, 'Europe/Paris'],
    [{ minutes: [30], hours: [1] }, 'America/New_York'],
    [{ minutes: [0, 30], hours: every, weekdays: [6] }, 'America/Santiago'],
    [{ minutes: [0, 48], hours: [2, 3] }, 'Pacific/Chatham'],
    [{ minutes: [0, 15, 45], hours: [1, 2] }, 'Australia/Lord_Howe'],
    [{ minutes: [0, 20, 40], hours: every }, 'Antarctica/Troll'],
    [{ minutes: [0, 30], hours: [2] }, 'Asia/Tokyo'],
  ];
  const policies: ModelPolicy[] = [
    { gap: 'shift', overlap: 'once' },
    { gap: 'skip', overlap: 'twice' },
  ];
  it('for the zones the issue names, each with both policies', async () => {
    let windows = 0;
    for (const [named, zone] of fixed) for (const p of policies) windows += await check(named, zone, p, true);
    console.log(`DST policy on the server, fixed jobs: ${windows} windows checked`);
    expect(windows).toBeGreaterThan(100);
  }, 300_000);

  it('for generated jobs in 22 zones (FUZZ_RUNS jobs, 25 by default)', async () => {
    let windows = 0;
    await fc.assert(
      fc.asyncProperty(
        namedTimesArb,
        fc.constantFrom(...DST_ZONES),
        modelPolicyArb,
        fc.boolean(),
        async (named, zone, p, asCron) => {
          windows += await check(named, zone, p, asCron);
        },
      ),
      fuzzParams(25, { interruptAfterTimeLimit: 600_000 }),
    );
    console.log(`DST policy on the server: ${windows} windows checked`);
    expect(windows).toBeGreaterThan(fuzzRuns(25) === 25 ? 120 : fuzzRuns(25) - 1);
  }, 900_000);
});

import fc from 'fast-check';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { previewTrigger } from '../../src/schedule/preview';
import { horizonYears } from '../../src/schedule/holidays';
import { FUZZ_SEED, fuzzParams, fuzzRuns } from '../helpers/fuzz';
import {
  MODEL_ZONES,
  modelCaseArb,
  modelTimes,
  triggerOf,
  yearStart,
  type ModelCase,
} from '../helpers/quartz-model';

/*
 * Quartz day forms (L, L-n, LW, nW, FRIL/5L, MON#n), date and holiday exclusions and businessDays, in 23
 * zones over three whole years: previewTrigger lists exactly the runs an independent model
 * (test/helpers/quartz-model.ts, luxon day by day, no code of src/schedule) says the trigger means.
 * The years are the last three of the holiday horizon, so holidays are held for all of them.
 * FUZZ_SEED replays a failure (chunk i runs with seed FUZZ_SEED + i); FUZZ_RUNS sets the number of cases
 * (npm run fuzz:time for a long run). The cases run in chunks of 340, one test each: a single test
 * running for minutes starves the test runner's messages.
 */

const horizon = horizonYears(new Date());
const YEARS = horizon.slice(1, 4);
const RUNS = fuzzRuns(680);
const CHUNK = 340;
/** Each case previews three years: tens of milliseconds, a few hundred on a loaded machine. */
const CHUNK_BUDGET_MS = 60_000 + CHUNK * 600;

const totals = { cases: 0, runs: 0, refused: 0, zones: new Set<string>() };

/** Preview against the model for one case; false when the trigger was refused (and the model is empty). */
function check(c: ModelCase): boolean {
  const trigger = triggerOf(c);
  const expected = modelTimes(c, YEARS, horizon);
  const from = new Date(Date.parse(yearStart(YEARS[0]!, c.zone)) - 1000).toISOString();
  const to = yearStart(YEARS[YEARS.length - 1]! + 1, c.zone);
  let local: string[];
  try {
    // One more than the model lists: it must fall after the window (the preview stops at 1,000).
    const n = Math.min(expected.length + 1, 1000);
    local = previewTrigger(trigger, n, { from }).fireTimes.map((f) => f.utc);
  } catch (err) {
    // Refused as naming no day that exists (e.g. "L-7" AND "SUNL"): the model finds none either.
    expect((err as Error).message).toContain('Temporal would never run the job');
    expect(expected, JSON.stringify(trigger)).toEqual([]);
    return false;
  }
  const inWindow = local.filter((t) => t < to);
  expect(inWindow, JSON.stringify(trigger)).toEqual(expected.slice(0, inWindow.length));
  if (expected.length < 1000) expect(inWindow.length).toBe(expected.length);
  totals.runs += expected.length;
  totals.zones.add(c.zone);
  return true;
}

describe(`fuzz: Quartz forms and exclusions over ${YEARS.join('-')} in ${MODEL_ZONES.length} zones, preview against an independent model`, () => {
  const chunks = Math.ceil(RUNS / CHUNK);
  for (let i = 0; i < chunks; i++) {
    const numRuns = Math.min(CHUNK, RUNS - i * CHUNK);
    it(
      `chunk ${i + 1}/${chunks}: ${numRuns} cases, seed ${FUZZ_SEED + i}`,
      async () => {
        // Async, yielding before each case: a test that holds the event loop for long starves the test
        // runner's messages (vitest's "Timeout calling onTaskUpdate", which fails the whole run).
        await fc.assert(
          fc.asyncProperty(modelCaseArb(YEARS), async (c) => {
            await yieldToLoop();
            if (check(c)) totals.cases++;
            else totals.refused++;
          }),
          { ...fuzzParams(CHUNK), numRuns, seed: FUZZ_SEED + i, interruptAfterTimeLimit: CHUNK_BUDGET_MS },
        );
      },
      CHUNK_BUDGET_MS + 30_000,
    );
  }

  it('compared every case', () => {
    console.log(
      `quartz model: ${totals.cases} cases, ${totals.runs} runs compared, ${totals.refused} refused (no such day), ${totals.zones.size} zones`,
    );
    expect(totals.cases + totals.refused).toBe(RUNS);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { previewTrigger } from '../../src/schedule/preview';
import { horizonYears } from '../../src/schedule/holidays';
import { fuzzParams, fuzzRuns } from '../helpers/fuzz';
import { MODEL_ZONES, modelCaseArb, modelTimes, triggerOf, yearStart } from '../helpers/quartz-model';

/*
 * Quartz day forms (L, L-n, LW, nW, FRIL/5L, MON#n), date and holiday exclusions and businessDays, in 23
 * zones over three whole years: previewTrigger lists exactly the runs an independent model
 * (test/helpers/quartz-model.ts, luxon day by day, no code of src/schedule) says the trigger means.
 * The years are the last three of the holiday horizon, so holidays are held for all of them.
 * FUZZ_SEED replays a failure; FUZZ_RUNS sets the number of cases (npm run fuzz:time for a long run).
 */

const horizon = horizonYears(new Date());
const YEARS = horizon.slice(1, 4);
const RUNS = fuzzRuns(640);
/** Each case previews three years: tens of milliseconds, a few hundred on a loaded machine. */
const BUDGET_MS = 60_000 + RUNS * 600;

describe('fuzz: Quartz forms and exclusions, preview against an independent model', () => {
  it(
    `lists exactly the model's runs over ${YEARS.join('-')} in ${MODEL_ZONES.length} zones`,
    () => {
      let cases = 0;
      let runs = 0;
      let refused = 0;
      const zones = new Set<string>();
      fc.assert(
        fc.property(modelCaseArb(YEARS), (c) => {
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
            refused++;
            return;
          }
          // Preview stops at 1,000 runs: a daily trigger has more in three years.
          const inWindow = local.filter((t) => t < to);
          expect(inWindow, JSON.stringify(trigger)).toEqual(expected.slice(0, inWindow.length));
          if (expected.length < 1000) expect(inWindow.length).toBe(expected.length);
          cases++;
          runs += expected.length;
          zones.add(c.zone);
        }),
        fuzzParams(640, { interruptAfterTimeLimit: BUDGET_MS }),
      );
      console.log(
        `quartz model: ${cases} cases, ${runs} runs compared, ${refused} refused (no such day), ${zones.size} zones`,
      );
      expect(cases + refused).toBe(RUNS);
    },
    BUDGET_MS + 30_000,
  );
});

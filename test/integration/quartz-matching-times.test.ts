import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { horizonYears } from '../../src/schedule/holidays';
import { previewTrigger } from '../../src/schedule/preview';
import type { Trigger } from '../../src/schedule/trigger-types';
import { fuzzParams, fuzzRuns } from '../helpers/fuzz';
import { serverTimes } from '../helpers/matching-times';
import { MODEL_ZONES, modelCaseArb, modelTimes, triggerOf, yearStart } from '../helpers/quartz-model';
import { connectTest, type TestContext } from '../helpers/temporal';

/*
 * Quartz day forms, exclusions (dates, public holidays) and businessDays over three whole years in 23
 * zones: the server's ListScheduleMatchingTimes (the times it will start; skip applied by the server),
 * previewTrigger, and the independent model of test/helpers/quartz-model.ts list the same runs. A few
 * fixed cases name the zones the issue lists; generated ones follow (FUZZ_SEED, FUZZ_RUNS).
 */

let t: TestContext;

beforeAll(async () => {
  t = await connectTest('quartz-times');
});
afterAll(async () => t?.close());

const horizon = horizonYears(new Date());
const YEARS = horizon.slice(1, 4);
/** A case is one schedule created, listed over three years and deleted: well under a second. */
const BUDGET_MS = 120_000 + fuzzRuns(40) * 1_500;

/** Server, preview and model over the three years; returns how many runs were compared. */
async function check(trigger: Trigger, expected: string[], zone: string): Promise<number> {
  const from = new Date(Date.parse(yearStart(YEARS[0]!, zone)) - 1000).toISOString();
  const to = new Date(Date.parse(yearStart(YEARS[2]! + 1, zone)) - 1000).toISOString();
  const server = await serverTimes(t, trigger, from, to);
  const what = JSON.stringify(trigger);
  const n = Math.min(server.length + 1, 1000);
  const local = previewTrigger(trigger, n, { from }).fireTimes.map((f) => f.utc);
  expect(local.slice(0, server.length), what).toEqual(server);
  if (server.length < 1000)
    expect(
      local.filter((u) => u <= to),
      what,
    ).toHaveLength(server.length);
  expect(server, what).toEqual(expected.slice(0, server.length));
  if (server.length < 1000) expect(server.length, what).toBe(expected.length);
  return server.length;
}

const FIXED = [
  { dom: 'L', dow: '*', zone: 'Europe/Paris' },
  { dom: '15W', dow: '*', zone: 'America/New_York', holidays: 'US-NY' },
  { dom: '*', dow: 'MON#2', zone: 'America/Santiago', holidays: 'CL' },
  { dom: 'LW', dow: '*', zone: 'Pacific/Chatham', holidays: 'NZ' },
  { dom: '*', dow: 'FRIL', zone: 'Australia/Lord_Howe' },
  { dom: 'L-3', dow: '*', zone: 'Antarctica/Troll' },
  { dom: '1W', dow: '*', zone: 'Asia/Kolkata', holidays: 'FR' },
  { dom: '*', dow: '*', zone: 'Europe/Paris', holidays: 'FR', businessDays: true, months: [5, 12] },
  // Midnight does not exist on a Sunday: the server alone would take it for a Saturday.
  { dom: '*', dow: 'SAT#1', zone: 'America/Santiago' },
  { dom: '*', dow: 'SAT#2', zone: 'America/Havana', dates: [`${YEARS[1]}-03-11`] },
].map((c) => ({
  months: undefined as number[] | undefined,
  hour: 9,
  minute: 30,
  holidays: undefined as string | undefined,
  dates: [] as string[],
  businessDays: false,
  ...c,
}));

describe('Quartz forms and exclusions: server, preview and an independent model agree', () => {
  it('on the fixed cases (the zones of the issue)', async () => {
    const counts = await Promise.all(
      FIXED.map((c) => check(triggerOf(c), modelTimes(c, YEARS, horizon), c.zone)),
    );
    expect(counts.every((n) => n > 0)).toBe(true);
    console.log(`quartz fixed: ${FIXED.length} cases, ${counts.reduce((a, b) => a + b, 0)} runs`);
  });

  it(
    `on generated cases in ${MODEL_ZONES.length} zones`,
    async () => {
      let compared = 0;
      let runs = 0;
      const BATCH = 8;
      const params = fuzzParams(40);
      await fc.assert(
        fc.asyncProperty(
          fc.array(modelCaseArb(YEARS), { minLength: BATCH, maxLength: BATCH }),
          async (cases) => {
            const valid = cases.flatMap((c) => {
              const expected = modelTimes(c, YEARS, horizon);
              try {
                previewTrigger(triggerOf(c), 1, { from: yearStart(YEARS[0]!, c.zone) });
              } catch {
                expect(expected).toEqual([]); // refused as naming no day that exists
                return [];
              }
              return [{ c, expected }];
            });
            const counts = await Promise.all(
              valid.map(({ c, expected }) => check(triggerOf(c), expected, c.zone)),
            );
            compared += counts.length;
            runs += counts.reduce((a, b) => a + b, 0);
          },
        ),
        { ...params, numRuns: Math.ceil(params.numRuns! / BATCH), interruptAfterTimeLimit: BUDGET_MS },
      );
      console.log(`quartz server: ${compared} generated cases, ${runs} runs compared, seed ${params.seed}`);
      expect(compared).toBeGreaterThan(0);
    },
    BUDGET_MS + 30_000,
  );

  it('jitter: every run the server will start lies in the window preview shows', async () => {
    const trigger: Trigger = { cron: ['0 9 L * *', '10 9 L * *'], timezone: 'Europe/Paris' };
    const from = '2027-01-01T00:00:00Z';
    const to = '2028-01-01T00:00:00Z';
    const jitterMs = 30 * 60_000; // more than the 10 minutes between the two runs of a day: capped there
    const server = await serverTimes(t, trigger, from, to, jitterMs);
    const preview = previewTrigger(trigger, 24, { from, jitter: jitterMs }).fireTimes;
    expect(server).toHaveLength(24);
    // Compare instants, not strings: the server's times may carry milliseconds ("…:00.183Z"), and
    // '.' sorts before 'Z', so a string comparison calls 07:10:00.183 earlier than 07:10:00.
    preview.forEach((p, i) => {
      const at = Date.parse(server[i]!);
      expect(
        at >= Date.parse(p.utc) && at < Date.parse(p.jitterUntil!),
        `${server[i]} in [${p.utc}, ${p.jitterUntil})`,
      ).toBe(true);
    });
    // The window of the 09:00 run stops at 09:10 (the next run), the 09:10 one is 30 minutes long.
    expect(preview[0]).toMatchObject({ utc: '2027-01-31T08:00:00Z', jitterUntil: '2027-01-31T08:10:00Z' });
    expect(preview[1]).toMatchObject({ utc: '2027-01-31T08:10:00Z', jitterUntil: '2027-01-31T08:40:00Z' });
    expect(server.some((s, i) => Date.parse(s) !== Date.parse(preview[i]!.utc))).toBe(true); // the server did jitter
  });
});

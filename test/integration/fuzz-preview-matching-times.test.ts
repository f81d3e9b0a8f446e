import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileTrigger } from '../../src/schedule/compile-trigger';
import { previewTrigger } from '../../src/schedule/preview';
import type { Trigger } from '../../src/schedule/trigger-types';
import { fuzzParams } from '../helpers/fuzz';
import { serverTimes } from '../helpers/matching-times';
import { connectTest, type TestContext } from '../helpers/temporal';
import { FUZZ_ZONES, validCalendar, validCron, windowIn } from '../helpers/trigger-arbitraries';

/*
 * Generated VALID cron strings and calendars, in 17 zones (30- and 45-minute offsets and DST, midnight
 * changes, negative DST, a 2-hour change), each over a window of 1 hour to 4 days that straddles a clock
 * change two times out of three: previewTrigger lists exactly what the server's ListScheduleMatchingTimes
 * lists. FUZZ_SEED replays a failure; FUZZ_RUNS=5000 is the long run (npm run fuzz).
 */

let t: TestContext;

beforeAll(async () => {
  t = await connectTest('fuzz-preview');
});
afterAll(async () => t?.close());

const caseArb = fc
  .tuple(
    fc.oneof(
      validCron.map((cron): Omit<Trigger, 'timezone'> => ({ cron })),
      fc
        .oneof(validCalendar, fc.array(validCalendar, { minLength: 1, maxLength: 2 }))
        .map((calendar) => ({ calendar })),
    ),
    fc.constantFrom(...FUZZ_ZONES),
  )
  .chain(([trigger, timezone]) =>
    windowIn(timezone).map(({ from, to }) => ({ trigger: { ...trigger, timezone }, from, to })),
  )
  .filter(({ trigger }) => {
    try {
      compileTrigger(trigger, 'UTC');
      return true;
    } catch {
      return false; // a day that never exists, or "1-7" as day-of-week: refused, nothing to compare
    }
  });

/** Cases checked at once: the server answers each in tens of milliseconds, mostly waiting. */
const BATCH = 10;

async function check({ trigger, from, to }: { trigger: Trigger; from: string; to: string }): Promise<number> {
  const server = await serverTimes(t, trigger, from, to);
  // One more than the server listed: the extra one must fall after `to` (the server stops at 1,000).
  const n = Math.min(server.length + 1, 1000);
  const local = previewTrigger(trigger, n, { from }).fireTimes.map((f) => f.utc);
  const what = JSON.stringify({ trigger, from, to });
  expect(local.slice(0, server.length), what).toEqual(server);
  if (server.length < 1000)
    expect(
      local.filter((utc) => utc <= to),
      what,
    ).toHaveLength(server.length);
  return server.length;
}

describe('fuzz: previewTrigger equals the server on generated cron and calendar specs', () => {
  it('lists the same fire times as ListScheduleMatchingTimes', async () => {
    let compared = 0;
    let times = 0;
    const started = Date.now();
    const params = fuzzParams(300);
    await fc.assert(
      fc.asyncProperty(fc.array(caseArb, { minLength: 1, maxLength: BATCH }), async (cases) => {
        const counts = await Promise.all(cases.map(check));
        compared += counts.length;
        times += counts.reduce((a, b) => a + b, 0);
      }),
      {
        ...params,
        numRuns: Math.ceil(params.numRuns! / (BATCH / 2 + 0.5)),
        timeout: 60_000,
        // A hang guard: the server is shared with the rest of the suite.
        interruptAfterTimeLimit: 120_000 + params.numRuns! * 400,
      },
    );
    console.log(
      `fuzz preview: ${compared} specs compared with the server (${times} fire times) in ${Date.now() - started} ms, seed ${params.seed}`,
    );
    expect(compared).toBeGreaterThan(0);
  }, 900_000);
});

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobNotFoundError } from '../../src/client/errors';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { TemporalFlowError } from '../../src/errors';
import { pipeline } from '../../src/pipeline/builder';
import { anyValue, fuzzParams, mutated, mutatedObject } from '../helpers/fuzz';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import { FUZZ_ZONES, validCalendar, validCron } from '../helpers/trigger-arbitraries';

/*
 * Job creation against the real server with fuzzed options (valid, mutated-valid and random): a refused
 * job is refused with a typed error naming the field and leaves no schedule behind; an accepted one is
 * exactly one schedule, listed under the test's own pipeline. No worker runs: every job is created paused
 * or fires in the future, and all are removed at the end.
 */

let t: TestContext;
let scheduler: PipelineScheduler;
const STEPS = ['extract', 'load', 'alert'];

beforeAll(async () => {
  t = await connectTest('fuzz-jobs');
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps: STEPS });
});
afterAll(async () => t?.close());

const base = fc.record(
  {
    paused: fc.boolean(),
    note: fc.string({ maxLength: 20 }),
    args: fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxLength: 3 }),
    onError: fc.constantFrom('alert', 'alert', 'alert', 'nope'),
    maxInstances: fc.integer({ min: 1, max: 3 }),
    coalesce: fc.boolean(),
    misfireGraceTime: fc.constantFrom('30s', 1000, '2h'),
    catchupWindow: fc.constantFrom('1m', '1d'),
    jitter: fc.constantFrom('1s', '10m'),
    startAt: fc.constantFrom('2027-01-01T00:00:00Z', '2026-06-01T00:00:00+02:00'),
    endAt: fc.constantFrom('2099-01-01T00:00:00Z'),
    timezone: fc.constantFrom(...FUZZ_ZONES),
  },
  { requiredKeys: [] },
);
const trigger = fc.oneof(
  validCron.map((cron) => ({ cron })),
  mutated(validCron).map((cron) => ({ cron })),
  validCalendar.map((calendar) => ({ calendar })),
  fc.constantFrom({ every: '1h' }, { minutes: 90, offset: '15m' }, { every: '1d', offset: '1h' }),
  fc
    .date({ min: new Date('2030-01-01'), max: new Date('2099-01-01') })
    .map((d) => ({ runAt: d.toISOString() })),
);
const valid = fc.tuple(base, trigger).map(([b, tr]) => ({ ...b, ...tr }));
const options = fc.oneof(
  { weight: 3, arbitrary: valid },
  { weight: 3, arbitrary: mutatedObject(valid) },
  anyValue,
);

describe('fuzz: PipelineScheduler job creation against the server', () => {
  it('refuses bad options with a typed error and no schedule; creates exactly one for good ones', async () => {
    const name = t.uid('fuzz-pipeline');
    const p = pipeline(name, { steps: STEPS }).step('extract').step('load');
    const created: string[] = [];
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(options, async (opts) => {
        const jobId = t.uid('fuzz-job');
        // Most cases get a fresh id (so the server's answer is checkable); the others keep a fuzzed one.
        const given =
          typeof opts === 'object' && opts !== null && !('jobId' in opts) ? { ...opts, jobId } : opts;
        const id =
          typeof (given as { jobId?: unknown })?.jobId === 'string'
            ? (given as { jobId: string }).jobId
            : jobId;
        try {
          const got = await scheduler.schedule(p, given as never);
          created.push(got);
          expect((await scheduler.getJob(got)).id).toBe(got);
        } catch (err) {
          if (!(err instanceof TemporalFlowError)) throw err;
          expect(typeof (err as { field?: unknown }).field).toBe('string');
          refused++;
          if (id.trim() !== '' && id.length <= 200)
            await expect(scheduler.getJob(id)).rejects.toThrow(JobNotFoundError);
        }
      }),
      { ...fuzzParams(80), interruptAfterTimeLimit: 300_000 },
    );
    const ids = [...created].sort();
    let last: string[] = [];
    const listed = await waitFor('the created jobs to be listed', async () => {
      last = (await scheduler.listJobs({ pipeline: name })).map((j) => j.id).sort();
      return last.length >= ids.length ? last : undefined;
    }).catch((err: unknown) => {
      const missing = ids.filter((id) => !last.includes(id));
      throw new Error(`${(err as Error).message}; not listed: ${JSON.stringify(missing)}`, { cause: err });
    });
    expect(listed).toEqual(ids);
    console.log(`fuzz jobs: ${created.length} created, ${refused} refused`);
    await Promise.all(created.map((id) => scheduler.removeJob(id)));
    expect(created.length).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  }, 600_000);
});

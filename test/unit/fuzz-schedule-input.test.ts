import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asGiven, checkArgs, checkJobFields, splitOptions } from '../../src/client/jobs/store/job-options';
import { compileTrigger } from '../../src/schedule/compile-trigger';
import { parseCron } from '../../src/schedule/cron';
import { InvalidPolicyError, InvalidTriggerError } from '../../src/schedule/errors';
import { parseInstant } from '../../src/parse/instant';
import { compilePolicies, type JobPolicies } from '../../src/schedule/policies';
import { previewTrigger } from '../../src/schedule/preview';
import type { Trigger } from '../../src/schedule/trigger-types';
import { anyValue, fuzzParams, mutated, mutatedObject, trickyString, typedOutcome } from '../helpers/fuzz';
import { FUZZ_ZONES, validCalendar, validCron } from '../helpers/trigger-arbitraries';

/*
 * Fuzzed schedule input: cron strings, calendars, intervals, one-offs, time zones, instants, job options and
 * policies. Random and mutated-valid input gives a result or a typed error with a `field`, never a crash
 * or a hang (each case has a time budget); what is accepted can be previewed and stored as given.
 */

const FROM = '2027-01-01T00:00:00Z';
const zone = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...FUZZ_ZONES) },
  mutated(fc.constantFrom(...FUZZ_ZONES)),
);
const instant = fc.oneof(
  fc.date({ min: new Date('1990-01-01'), max: new Date('2110-01-01') }),
  fc.date(),
  fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'x' : d.toISOString())),
  mutated(
    fc.constantFrom(
      '2027-06-01T12:34:56Z',
      '2027-02-28T00:00:00+01:00',
      '2028-02-29T23:59:59.999-05:30',
      '2027-01-01 09:30Z',
    ),
  ),
  trickyString,
  anyValue,
);
const duration = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom('30s', '1h', '90m', '1d', '0', '-5s', '1e400', '200y'),
  trickyString,
);

/** Triggers: valid ones, valid ones mutated, and values of the wrong shape. */
const triggerArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.record(
    { cron: fc.oneof(validCron, mutated(validCron), fc.array(validCron, { maxLength: 3 })), timezone: zone },
    { requiredKeys: ['cron'] },
  ),
  fc.record(
    { calendar: fc.oneof(validCalendar, fc.array(validCalendar, { maxLength: 3 })), timezone: zone },
    { requiredKeys: ['calendar'] },
  ),
  mutatedObject(fc.record({ calendar: validCalendar, timezone: zone })),
  fc.record(
    {
      every: duration,
      seconds: fc.double(),
      minutes: fc.integer(),
      hours: fc.nat({ max: 48 }),
      days: fc.double({ min: 0, max: 400 }),
      weeks: fc.nat(),
      offset: duration,
      timezone: zone,
    },
    { requiredKeys: [] },
  ),
  fc.record({ runAt: instant, timezone: zone }, { requiredKeys: ['runAt'] }),
  mutatedObject(fc.record({ cron: validCron, timezone: zone })),
  anyValue,
);

/**
 * A preview also words a year of DST warnings, comparing up to 20,000 fire times around each clock change:
 * an every-second cron in a DST zone takes about 2 s (measured on 2 shared cores). A hang guard, not a target.
 */
const PREVIEW_BUDGET_MS = 8_000;

/** A UTC ISO string `preview` produced: always a real instant. */
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

describe('fuzz: triggers, instants, job options and policies give a result or a typed error', () => {
  it('parseCron accepts generated valid strings (unless they name no existing day), idempotently', () => {
    let accepted = 0;
    fc.assert(
      fc.property(validCron, (cron) => {
        const out = typedOutcome(() => parseCron(cron));
        if (!out.ok) {
          // The generator does not know which day/month pairs exist, nor that "1-7" drops Sundays.
          expect(out.error.message).toMatch(/no such day|would never run on Sunday/);
          return;
        }
        accepted++;
        const { source } = out.value as ReturnType<typeof parseCron>;
        expect(parseCron(source)).toEqual(out.value);
      }),
      fuzzParams(2000),
    );
    expect(accepted).toBeGreaterThan(0);
  });

  it('parseCron on mutated and random strings: a result or InvalidTriggerError for field "cron"', () => {
    fc.assert(
      fc.property(fc.oneof({ weight: 3, arbitrary: mutated(validCron) }, trickyString, anyValue), (input) => {
        const out = typedOutcome(() => parseCron(input as string));
        if (!out.ok) {
          expect(out.error).toBeInstanceOf(InvalidTriggerError);
          expect((out.error as InvalidTriggerError).field).toBe('cron');
        }
      }),
      fuzzParams(3000),
    );
  });

  it('compileTrigger on anything: a typed error, or a trigger that previews to real instants and stores as given', () => {
    fc.assert(
      fc.property(triggerArb, fc.constantFrom(...FUZZ_ZONES), (trigger, defaultZone) => {
        const out = typedOutcome(() => compileTrigger(trigger as Trigger, defaultZone));
        if (!out.ok) {
          expect(out.error).toBeInstanceOf(InvalidTriggerError);
          return;
        }
        const preview = typedOutcome(
          () => previewTrigger(trigger as Trigger, 5, { from: FROM, defaultTimezone: defaultZone }),
          PREVIEW_BUDGET_MS,
        );
        expect(preview.ok).toBe(true);
        if (preview.ok) {
          for (const f of (preview.value as ReturnType<typeof previewTrigger>).fireTimes)
            expect(f.utc).toMatch(ISO_UTC);
        }
        expect(() => asGiven(trigger as object)).not.toThrow();
      }),
      fuzzParams(500),
    );
  });

  it('instants: runAt, startAt, endAt and preview "from" accept exactly the same values, at the same instant', () => {
    fc.assert(
      fc.property(
        instant.filter((v) => v !== undefined),
        (value) => {
          const read = typedOutcome(() => parseInstant(value, 'at'));
          const parsed = read.ok ? (read.value as Date) : undefined;
          const runAt = typedOutcome(() => compileTrigger({ runAt: value as string }, 'UTC'));
          const startAt = typedOutcome(() => compilePolicies({ startAt: value as string }));
          const from = typedOutcome(() => previewTrigger({ cron: '@daily' }, 1, { from: value as string }));
          expect(startAt.ok).toBe(parsed !== undefined);
          expect(from.ok).toBe(parsed !== undefined);
          if (startAt.ok)
            expect((startAt.value as { startAt: Date }).startAt.getTime()).toBe(parsed!.getTime());
          const year = parsed?.getUTCFullYear() ?? 0;
          // runAt adds Temporal's calendar years on top.
          expect(runAt.ok).toBe(parsed !== undefined && year >= 2000 && year <= 2100);
        },
      ),
      fuzzParams(2000),
    );
  });

  const validPolicies = fc.record(
    {
      maxInstances: fc.integer({ min: 1, max: 5 }),
      coalesce: fc.boolean(),
      misfireGraceTime: fc.constantFrom('30s', 5000, '1h'),
      catchupWindow: fc.constantFrom('1m', 10_000, '1d'),
      pauseOnFailure: fc.boolean(),
      jitter: fc.constantFrom('1s', 500),
      startAt: fc.constantFrom('2027-01-01T00:00:00Z'),
      endAt: fc.constantFrom('2028-01-01T00:00:00Z'),
    },
    { requiredKeys: [] },
  );

  it('compilePolicies on mutated and random policies: InvalidPolicyError, or well-typed policies', () => {
    fc.assert(
      fc.property(
        fc.oneof(validPolicies, { weight: 3, arbitrary: mutatedObject(validPolicies) }, anyValue),
        (p) => {
          const out = typedOutcome(() => compilePolicies(p as JobPolicies));
          if (!out.ok) {
            expect(out.error).toBeInstanceOf(InvalidPolicyError);
            return;
          }
          const c = out.value as ReturnType<typeof compilePolicies>;
          expect(typeof c.pauseOnFailure).toBe('boolean');
          expect(Number.isInteger(c.maxInstances) && c.maxInstances >= 1).toBe(true);
          for (const ms of [c.catchupWindowMs, c.jitterMs, c.misfireGraceMs]) {
            if (ms !== undefined) expect(Number.isSafeInteger(ms) && ms >= 0).toBe(true);
          }
        },
      ),
      fuzzParams(2000),
    );
  });

  it('job options (split, job fields, args, trigger, policies, as createJob checks them): typed error or valid', () => {
    const options = fc.oneof(
      {
        weight: 3,
        arbitrary: mutatedObject(
          fc.record({
            cron: validCron,
            jobId: fc.constantFrom('job-1'),
            args: fc.array(fc.integer(), { maxLength: 2 }),
            note: fc.string({ maxLength: 5 }),
            paused: fc.boolean(),
          }),
        ),
      },
      mutatedObject(
        fc.record({
          every: fc.constantFrom('1h'),
          maxInstances: fc.constant(2),
          replaceExisting: fc.boolean(),
        }),
      ),
      anyValue,
    );
    fc.assert(
      fc.property(options, (opts) => {
        typedOutcome(() => {
          const { trigger, job, policies } = splitOptions(opts as never);
          checkJobFields(job);
          checkArgs(job.args);
          compileTrigger(trigger, 'UTC');
          compilePolicies(policies);
          asGiven(trigger);
        });
      }),
      fuzzParams(2000),
    );
  });
});

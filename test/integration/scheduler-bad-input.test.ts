import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScheduleNotFoundError } from '@temporalio/client';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { JobAlreadyExistsError } from '../../src/client/errors';
import { InvalidArgumentError, TemporalFlowError } from '../../src/errors';
import { pipeline, PipelineSpecError, UnknownStepError } from '../../src/pipeline';
import { InvalidPolicyError, InvalidTriggerError, UnknownHolidaysError } from '../../src/schedule/errors';
import { connectTest, type TestContext } from '../helpers/temporal';

/*
 * Bad input through the real path (PipelineScheduler -> Temporal): each case gets a typed error with a
 * message that says what to write, and no schedule is left behind. The full text of each message is
 * pinned in test/unit/schedule-errors.test.ts; here the table pins the error class and the key phrase.
 */

const steps = { extract: async () => 1, load: async () => 2 };
const etl = pipeline('bad-input', { steps }).step('extract').step('load');

type Verb = 'schedule' | 'scheduleInterval' | 'scheduleAt';
interface BadJob {
  name: string;
  verb: Verb;
  options: Record<string, unknown>;
  error: new (...args: never[]) => TemporalFlowError;
  says: string | RegExp;
}

const CASES: BadJob[] = [
  {
    name: '6-field cron',
    verb: 'schedule',
    options: { cron: '0 30 9 * * MON' },
    error: InvalidTriggerError,
    says: 'it has 6 fields, which is ambiguous',
  },
  {
    name: 'Quartz ?',
    verb: 'schedule',
    options: { cron: '0 9 ? * MON' },
    error: InvalidTriggerError,
    says: 'Temporal has no "?": write "*"',
  },
  {
    name: 'Quartz L alone in day-of-week',
    verb: 'schedule',
    options: { cron: '0 9 * * L' },
    error: InvalidTriggerError,
    says: '"L" alone means Saturday in Quartz',
  },
  {
    name: 'W outside day-of-month',
    verb: 'schedule',
    options: { cron: '0 9 * * 15W' },
    error: InvalidTriggerError,
    says: 'written in day-of-month as L, L-3',
  },
  {
    name: 'a comment after #',
    verb: 'schedule',
    options: { cron: '0 9 * * MON # weekly' },
    error: InvalidTriggerError,
    says: 'Temporal reads everything after it as a comment',
  },
  {
    name: 'unknown holiday set',
    verb: 'schedule',
    options: { cron: '0 9 * * *', exclude: [{ holidays: 'FR' }, { holidays: 'ZZ' }] },
    error: UnknownHolidaysError,
    says: '"ZZ" is not a country date-holidays knows',
  },
  {
    name: 'minute out of range',
    verb: 'schedule',
    options: { cron: '61 * * * *' },
    error: InvalidTriggerError,
    says: 'out of range 0-59',
  },
  {
    name: 'hour out of range',
    verb: 'schedule',
    options: { cron: '0 24 * * *' },
    error: InvalidTriggerError,
    says: 'out of range 0-23',
  },
  {
    name: 'backwards range',
    verb: 'schedule',
    options: { cron: '0 9 * * FRI-MON' },
    error: InvalidTriggerError,
    says: 'goes backwards',
  },
  {
    name: 'Monday-is-0 mix',
    verb: 'schedule',
    options: { cron: '0 9 * * MON-4' },
    error: InvalidTriggerError,
    says: 'write names only',
  },
  {
    name: 'day-of-week 1-7',
    verb: 'schedule',
    options: { cron: '0 9 * * 1-7' },
    error: InvalidTriggerError,
    says: 'would never run on Sunday',
  },
  {
    name: 'a day that never exists',
    verb: 'schedule',
    options: { cron: '0 0 31 APR *' },
    error: InvalidTriggerError,
    says: /never/,
  },
  {
    name: '@every',
    verb: 'schedule',
    options: { cron: '@every 5m' },
    error: InvalidTriggerError,
    says: 'interval',
  },
  { name: 'empty cron', verb: 'schedule', options: { cron: '' }, error: InvalidTriggerError, says: 'empty' },
  {
    name: 'unknown time zone',
    verb: 'schedule',
    options: { cron: '0 2 * * *', timezone: 'Europe/Pariss' },
    error: InvalidTriggerError,
    says: 'not an IANA time zone',
  },
  {
    name: 'lower-case time zone',
    verb: 'schedule',
    options: { cron: '0 2 * * *', timezone: 'europe/paris' },
    error: InvalidTriggerError,
    says: 'Europe/Paris',
  },
  {
    name: 'calendar with a bad field',
    verb: 'schedule',
    options: { calendar: { day_of_week: 'MON' } },
    error: InvalidTriggerError,
    says: 'dayOfWeek',
  },
  {
    name: 'calendar hour out of range',
    verb: 'schedule',
    options: { calendar: { hour: 25 } },
    error: InvalidTriggerError,
    says: 'out of range',
  },
  {
    name: 'two triggers',
    verb: 'schedule',
    options: { cron: '0 2 * * *', every: '1h' },
    error: InvalidTriggerError,
    says: 'one trigger',
  },
  {
    name: 'interval not a duration',
    verb: 'scheduleInterval',
    options: { every: 'soon' },
    error: InvalidTriggerError,
    says: 'is not a duration',
  },
  {
    name: 'interval below a second',
    verb: 'scheduleInterval',
    options: { every: 500 },
    error: InvalidTriggerError,
    says: /second/,
  },
  {
    name: 'offset not shorter than interval',
    verb: 'scheduleInterval',
    options: { hours: 1, offset: '2h' },
    error: InvalidTriggerError,
    says: 'shorter than the interval',
  },
  {
    name: 'runAt without offset',
    verb: 'scheduleAt',
    options: { runAt: '2030-01-01T10:00:00' },
    error: InvalidTriggerError,
    says: 'with "Z" or an offset',
  },
  {
    name: 'runAt not a date',
    verb: 'scheduleAt',
    options: { runAt: 'tomorrow' },
    error: InvalidTriggerError,
    says: 'is not an instant',
  },
  {
    name: 'maxInstances 0',
    verb: 'scheduleInterval',
    options: { every: '1h', maxInstances: 0 },
    error: InvalidPolicyError,
    says: 'maxInstances must be a whole number of 1 or more',
  },
  {
    name: 'maxInstances with SKIP',
    verb: 'scheduleInterval',
    options: { every: '1h', maxInstances: 3, overlap: 'SKIP' },
    error: InvalidPolicyError,
    says: 'needs overlap ALLOW_ALL',
  },
  {
    name: 'unknown overlap',
    verb: 'scheduleInterval',
    options: { every: '1h', overlap: 'QUEUE' },
    error: InvalidPolicyError,
    says: 'is not one of SKIP',
  },
  {
    name: 'catch-up window below 10 s',
    verb: 'scheduleInterval',
    options: { every: '1h', catchupWindow: '5s' },
    error: InvalidPolicyError,
    says: "Temporal's minimum",
  },
  {
    name: 'misfire grace not a duration',
    verb: 'scheduleInterval',
    options: { every: '1h', misfireGraceTime: 'a bit' },
    error: InvalidPolicyError,
    says: 'is not a duration',
  },
  {
    name: 'endAt before startAt',
    verb: 'scheduleInterval',
    options: { every: '1h', startAt: '2030-01-02T00:00:00Z', endAt: '2030-01-01T00:00:00Z' },
    error: InvalidPolicyError,
    says: 'endAt must be after startAt',
  },
  {
    name: 'args not an array',
    verb: 'scheduleInterval',
    options: { every: '1h', args: 'eu' },
    error: InvalidArgumentError,
    says: 'args must be an array',
  },
  {
    name: 'unknown option',
    verb: 'scheduleInterval',
    options: { every: '1h', max_instances: 2 },
    error: InvalidArgumentError,
    says: 'unknown job option "max_instances"',
  },
  {
    name: 'onError not a name',
    verb: 'scheduleInterval',
    options: { every: '1h', onError: '' },
    error: InvalidArgumentError,
    says: 'onError must be the name of an activity',
  },
];

let t: TestContext;
let scheduler: PipelineScheduler;
const jobIds: string[] = [];

beforeAll(async () => {
  t = await connectTest('bad-input');
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => t?.close());

async function exists(jobId: string): Promise<boolean> {
  try {
    await t.client.schedule.getHandle(jobId).describe();
    return true;
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return false;
    throw err;
  }
}

describe('bad job input through PipelineScheduler: a typed error, and nothing created', () => {
  it('has at least 25 cases', () => expect(CASES.length).toBeGreaterThanOrEqual(25));

  it.each(CASES)('$name', async ({ verb, options, error, says }) => {
    const jobId = t.uid('bad');
    jobIds.push(jobId);
    const call = scheduler[verb].bind(scheduler) as (
      p: typeof etl,
      o: Record<string, unknown>,
    ) => Promise<string>;
    const err = await call(etl, { jobId, ...options }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(error);
    expect((err as Error).constructor).toBe(error);
    expect((err as Error).message).toMatch(says);
    expect(await exists(jobId)).toBe(false);
  });

  it('refuses a pipeline naming a step the worker lacks, and a duplicate id, leaving the first job as it was', async () => {
    const jobId = t.uid('dup');
    const loose = pipeline('loose').step('extract').step('transform');
    await expect(scheduler.schedule(loose, { jobId, cron: '0 2 * * *' })).rejects.toBeInstanceOf(
      UnknownStepError,
    );
    expect(await exists(jobId)).toBe(false);
    await scheduler.schedule(etl, { jobId, cron: '0 2 * * *', note: 'first', paused: true });
    await expect(scheduler.schedule(etl, { jobId, cron: '0 3 * * *' })).rejects.toBeInstanceOf(
      JobAlreadyExistsError,
    );
    expect((await t.client.schedule.getHandle(jobId).describe()).state.note).toBe('first');
    await scheduler.removeJob(jobId);
  });

  it('refuses an invalid pipeline before anything is created', async () => {
    const jobId = t.uid('empty');
    await expect(scheduler.schedule(pipeline('empty'), { jobId, cron: '0 2 * * *' })).rejects.toBeInstanceOf(
      PipelineSpecError,
    );
    expect(await exists(jobId)).toBe(false);
  });
});

describe('arguments that are neither a trigger nor a policy: InvalidArgumentError naming them', () => {
  it.each([
    ['from', () => scheduler.backfillJob('never-read', { from: '2027-01-01', to: '2027-01-02T00:00:00Z' })],
    [
      'to',
      () => scheduler.backfillJob('never-read', { from: '2027-01-02T00:00:00Z', to: '2027-01-01T00:00:00Z' }),
    ],
    ['limit', () => scheduler.getHistory('never-read', { limit: 0 })],
  ] as const)('%s', async (field, call) => {
    const err = await call().catch((e: unknown) => e);
    expect((err as Error).constructor).toBe(InvalidArgumentError);
    expect(err).toMatchObject({ field, code: 'INVALID_ARGUMENT' });
  });
});

/*
 * modifyJob's one validation stop (parseJobChanges): every bad field is refused, naming it, before any
 * call to Temporal (so a job that does not exist still gets the field's error, not JobNotFoundError), and
 * a refused modify writes nothing (the schedule's conflict token and write ids are as they were).
 */
const BAD_CHANGES: {
  changes: Record<string, unknown>;
  error: new (...a: never[]) => Error;
  field: string;
}[] = [
  { changes: { retries: 3 }, error: InvalidArgumentError, field: 'retries' },
  { changes: { cron: '0 3 * * *' }, error: InvalidArgumentError, field: 'cron' },
  { changes: { note: 5 }, error: InvalidArgumentError, field: 'note' },
  { changes: { maxInstances: 0 }, error: InvalidPolicyError, field: 'maxInstances' },
  { changes: { args: 'x' }, error: InvalidArgumentError, field: 'args' },
  { changes: { onError: '' }, error: InvalidArgumentError, field: 'onError' },
  { changes: { onError: 'page' }, error: UnknownStepError, field: 'onError' },
  { changes: { onMissed: 'page' }, error: InvalidArgumentError, field: 'onMissed' },
  { changes: { onLate: 42, lateAfter: '5m' }, error: InvalidArgumentError, field: 'onLate' },
  {
    changes: { onSilent: { webhook: { url: 'ftp://hooks.test/x' } }, expectSuccessWithin: '1h' },
    error: InvalidArgumentError,
    field: 'onSilent.webhook.url',
  },
  { changes: { onLate: 'load', lateAfter: 'soon' }, error: InvalidArgumentError, field: 'lateAfter' },
  {
    changes: { onSilent: 'load', expectSuccessWithin: -5 },
    error: InvalidArgumentError,
    field: 'expectSuccessWithin',
  },
];

describe('modifyJob: one validation stop, before any call', () => {
  it.each(BAD_CHANGES)('refuses $field of a job that does not exist with its own error', async (c) => {
    const err = await scheduler.modifyJob(t.uid('absent'), c.changes).catch((e: unknown) => e);
    expect((err as Error).constructor).toBe(c.error);
    expect(err).toMatchObject({ field: c.field });
  });

  it('writes nothing for a refused modify, and the job takes a good one after', async () => {
    const jobId = t.uid('modify');
    await scheduler.schedule(etl, { jobId, cron: '0 2 * * *', paused: true, note: 'first' });
    const handle = t.client.schedule.getHandle(jobId);
    const token = async () => {
      const d = await handle.describe();
      return { token: Buffer.from(d.raw.conflictToken ?? []).toString('base64'), writes: d.action.memo };
    };
    const before = await token();
    // Refused by the update itself, which alone knows the job's alerts: still before the write.
    const halfPair = { changes: { lateAfter: '5m' }, error: InvalidArgumentError, field: 'onLate' };
    for (const c of [...BAD_CHANGES, halfPair]) {
      const err = await scheduler.modifyJob(jobId, c.changes).catch((e: unknown) => e);
      expect((err as Error).constructor, c.field).toBe(c.error);
      expect(err).toMatchObject({ field: c.field });
    }
    expect(await token()).toEqual(before);
    await scheduler.modifyJob(jobId, { note: 'second', onLate: 'load', lateAfter: '5m' });
    const after = await handle.describe();
    expect(Buffer.from(after.raw.conflictToken ?? []).toString('base64')).not.toBe(before.token);
    expect(after.state.note).toBe('second');
    expect(await scheduler.getJob(jobId)).toMatchObject({ alerts: { onLate: 'load', lateAfter: '5m' } });
    await scheduler.removeJob(jobId);
  });
});

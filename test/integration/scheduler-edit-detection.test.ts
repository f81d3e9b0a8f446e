import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import type { Trigger } from '../../src/schedule/trigger-types';
import { connectTest, type TestContext } from '../helpers/temporal';

/*
 * Edit detection compares the spec temporal-flow asked for with the spec the server keeps, which the
 * server rewrites (cron strings become calendar ranges). Every trigger below must read back as unedited:
 * a false "edited outside" would make getJob() lose the trigger as given.
 */

const TRIGGERS: Trigger[] = [
  { cron: '0 2 * * *' },
  { cron: '*/15 9-17 * * MON-FRI', timezone: 'America/New_York' },
  { cron: '@daily', timezone: 'Europe/Paris' },
  { cron: '@hourly' },
  { cron: '@weekly' },
  { cron: '@monthly', timezone: 'Asia/Tokyo' },
  { cron: '@yearly' },
  { cron: '0 0 1,15 * 7' },
  { cron: '0 0 * * 0' },
  { cron: '5-10/2 */3 1-7 JAN-MAR,OCT sun-tue' },
  { cron: '30 10 5 * * * 2027' },
  { cron: '0 30 2 * * * *', timezone: 'Australia/Sydney' },
  { cron: ['0 9 * * 1-5', '0 12 * * 6,7'] },
  { cron: '0 12 29 2 *' },
  { calendar: { hour: [9, 17], minute: 30, dayOfWeek: { start: 'MONDAY', end: 'FRIDAY' } } },
  { calendar: { second: '*/20', minute: 0, hour: 12 }, timezone: 'Asia/Kolkata' },
  { calendar: { month: 'FEBRUARY', dayOfMonth: 29, hour: 12 } },
  {
    calendar: [
      { hour: 8, dayOfWeek: 'SAT' },
      { hour: 10, dayOfWeek: 'SUNDAY', comment: 'weekend' },
    ],
  },
  { calendar: { minute: { start: 0, end: 59, step: 15 }, year: 2031, month: 'DEC' } },
  { every: '30s' },
  { every: '2h', offset: '1h' },
  { minutes: 5 },
  { days: 1, offset: '6h', timezone: 'Europe/Berlin' },
  { runAt: '2030-06-01T12:34:56Z' },
  // Quartz day forms (sent as calendars) and exclusions (sent as skip)
  { cron: '0 9 L * *', timezone: 'Europe/Paris' },
  { cron: ['0 9 15W * *', '30 8 * * MON#2'], timezone: 'America/Santiago' },
  { cron: '0 18 * * FRIL', exclude: [{ holidays: 'US-NY' }, '2030-12-24'], timezone: 'America/New_York' },
  { calendar: { hour: 9, dayOfMonth: 'LW' }, businessDays: true },
  { every: '1h', exclude: { from: '2030-08-01', to: '2030-08-15' } },
];

let t: TestContext;
let scheduler: PipelineScheduler;
const p = pipeline('edit-detect').step('noop');

beforeAll(async () => {
  t = await connectTest('edit-detect');
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue });
});
afterAll(async () => t?.close());

describe('the server keeps what temporal-flow asked for', () => {
  it.each(TRIGGERS.map((trigger) => [JSON.stringify(trigger), trigger] as const))(
    '%s reads back unedited, as given',
    async (_name, trigger) => {
      const jobId = t.uid('detect');
      await scheduler.schedule(p, { ...(trigger as { cron: string }), jobId, paused: true });
      const job = await scheduler.getJob(jobId);
      await scheduler.removeJob(jobId);
      expect(job).toMatchObject({ foreign: false, editedOutside: false, trigger });
      const { exclude, businessDays } = trigger as { exclude?: unknown; businessDays?: boolean };
      if (exclude === undefined && !businessDays) expect(job.foreign || job.exclusions).toBeFalsy();
    },
  );

  it('a job lists the exclusions it carries, and how far its holidays reach', async () => {
    const jobId = t.uid('exclusions');
    await scheduler.schedule(p, {
      cron: '0 9 * * *',
      timezone: 'Europe/Paris',
      exclude: [{ holidays: 'FR' }, { from: '2030-12-24', to: '2030-12-31' }],
      businessDays: true,
      jobId,
      paused: true,
    });
    const job = await scheduler.getJob(jobId);
    await scheduler.removeJob(jobId);
    if (job.foreign) throw new Error('expected our job');
    expect(job.exclusions).toEqual(
      expect.arrayContaining(['weekend', '2030-12-24 to 2030-12-31', 'holiday FR: Christmas Day']),
    );
    expect(job.exclusionsHeldUntil).toBe(Math.max(2030, new Date().getUTCFullYear() + 3));
  });
});

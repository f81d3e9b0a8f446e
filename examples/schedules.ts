import type { PipelineScheduler } from 'temporal-flow';
import { healthCheck, nightlyEtl } from './pipelines';

/** Ids of the example jobs: fixed, so that every `npm start` updates the same schedules instead of adding new ones. */
export const EXAMPLE_JOBS = {
  healthCheck: 'example-health-check',
  nightlyEtl: 'example-nightly-etl',
} as const;

/** Creates the example jobs, or updates them in place when they exist (idempotent). */
export async function scheduleExamples(scheduler: PipelineScheduler): Promise<string[]> {
  return [
    await scheduler.scheduleInterval(healthCheck, {
      jobId: EXAMPLE_JOBS.healthCheck,
      every: '30s',
      note: 'example: host health every 30 s',
      replaceExisting: true,
    }),
    await scheduler.schedule(nightlyEtl, {
      jobId: EXAMPLE_JOBS.nightlyEtl,
      cron: '0 2 * * *',
      timezone: 'Europe/Paris',
      args: ['eu'],
      maxInstances: 1,
      coalesce: true,
      misfireGraceTime: '10m',
      note: 'example: nightly ETL at 02:00 Paris time',
      replaceExisting: true,
    }),
  ];
}

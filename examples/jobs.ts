/*
 * The example jobs as code: `npm start` applies this file (examples/main.ts), and
 * `npx tflow plan examples/jobs.ts` compares it with the server (no changes once `npm start` ran).
 * Edit a job here and plan again to see the diff; `tflow apply examples/jobs.ts` makes it so.
 */
import { defineJobs } from 'temporal-flow';
import { healthCheck, nightlyEtl } from './pipelines';
import { EXAMPLE_JOBS } from './schedules';

export default defineJobs({
  set: 'examples',
  pipelines: [healthCheck, nightlyEtl],
  jobs: [
    {
      jobId: EXAMPLE_JOBS.healthCheck,
      pipeline: 'health-check',
      every: '30s',
      note: 'example: host health every 30 s',
    },
    {
      jobId: EXAMPLE_JOBS.nightlyEtl,
      pipeline: 'nightly-etl',
      cron: '0 2 * * *',
      timezone: 'Europe/Paris',
      args: ['eu'],
      maxInstances: 1,
      coalesce: true,
      misfireGraceTime: '10m',
      note: 'example: nightly ETL at 02:00 Paris time',
    },
  ],
});

/**
 * Ids of the example jobs: fixed, so that every `npm start` updates the same schedules instead of adding
 * new ones. The jobs themselves are data, in examples/jobs.ts, applied by examples/main.ts.
 */
export const EXAMPLE_JOBS = {
  healthCheck: 'example-health-check',
  nightlyEtl: 'example-nightly-etl',
} as const;

import { pipeline } from 'temporal-flow';
import { steps } from './steps';

/** Every 30 s: sample the host, judge its health. */
export const healthCheck = pipeline('health-check', { steps, timeout: '1m' })
  .step('sampleHost', { timeout: '10s' })
  .step('judgeHealth', { timeout: '10s' });

/** Nightly: extract a region's rows, aggregate them, load the result (undone if a later step fails). */
export const nightlyEtl = pipeline('nightly-etl', { steps, timeout: '1h' })
  .step('extract', {
    retry: { maximumAttempts: 5, initialInterval: '2s', backoffCoefficient: 2 },
    timeout: '5m',
  })
  .step('transform')
  .step('load', { compensate: 'unload' });

/*
 * One example per kind of flow (see docs/pipelines.md): a child pipeline, a chain, a durable sleep, and a
 * wait for a human's approval. `examples/flow-demo.ts` runs each of them.
 */
import { pipeline } from 'temporal-flow';
import { steps } from './steps';

/** A reusable piece: a region's rows, aggregated. Run on its own or as a child of another pipeline. */
export const regionSummary = pipeline('region-summary', { steps }).step('extract').step('transform');

/**
 * Child pipeline: `region-summary` runs as a child workflow (its own history, shown under this run in the
 * Temporal UI); its output is loaded. If `load` failed, the child's work would stay (it has no
 * compensation), `load`'s own would be undone.
 */
export const loadViaChild = pipeline('load-via-child', { steps })
  .pipeline('summary', regionSummary)
  .step('load', { compensate: 'unload' });

/**
 * Chain: when the summary completes, a new run of `load-summary` starts with its output, 1 s later, with
 * the id `<this run's id>-load` (a second completion with that id would not start it again).
 */
export const loadSummary = pipeline('load-summary', { steps }).step('load', { compensate: 'unload' });
export const summaryThenLoad = pipeline('summary-then-load', { steps })
  .step('extract')
  .step('transform')
  .then(loadSummary, { delay: '1s', jobId: '{run}-load' });

/** Sleep: sample, let the machine settle for 2 s on a server-side timer, sample's verdict. */
export const settledHealth = pipeline('settled-health', { steps })
  .step('sampleHost')
  .sleep('settle', '2s')
  .step('judgeHealth');

/**
 * Waiting for a signal: the report is published once someone approves
 * (`tflow runs signal <workflowId> approve '{"by":"ann","region":"eu"}'`); without an answer within an
 * hour the run fails and the loaded file is removed.
 */
export const approvedReport = pipeline('approved-report', { steps })
  .step('extract')
  .step('transform')
  .step('load', { compensate: 'unload' })
  .waitFor('review', { signal: 'approve', timeout: '1h' })
  .step('publish');

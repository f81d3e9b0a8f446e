/*
 * The hand-written baselines of bench/pipeline-overhead.bench.ts: the same three no-op activities as
 * the benchmarked pipelines, called in sequence with the same activity options, and nothing else; once as
 * regular activities, once as local activities. Bundled on their own (never part of the library's
 * workflow bundle).
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { noopSteps } from './noop-steps';

const options = { startToCloseTimeout: 10 * 60_000 };
const regular = proxyActivities<typeof noopSteps>(options);
const local = proxyLocalActivities<typeof noopSteps>(options);

export async function baselineWorkflow(x: number): Promise<number> {
  return regular.stepC(await regular.stepB(await regular.stepA(x)));
}

export async function baselineLocalWorkflow(x: number): Promise<number> {
  return local.stepC(await local.stepB(await local.stepA(x)));
}

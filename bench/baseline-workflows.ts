/*
 * The hand-written baseline of bench/pipeline-overhead.bench.ts: the same three no-op activities as
 * the benchmarked pipeline, called in sequence with the same activity options, and nothing else.
 * Bundled on its own (never part of the library's workflow bundle).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { noopSteps } from './noop-steps';

const { stepA, stepB, stepC } = proxyActivities<typeof noopSteps>({ startToCloseTimeout: 10 * 60_000 });

export async function baselineWorkflow(x: number): Promise<number> {
  return stepC(await stepB(await stepA(x)));
}

/*
 * The hand-written baseline of bench/fire-burst.bench.ts: what a Temporal user would schedule by hand,
 * one activity with the same options as a pipeline step's defaults, and nothing else. Bundled on its own
 * (never part of the library's workflow bundle).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { BurstSteps } from './burst-steps';

const { burstStep } = proxyActivities<BurstSteps>({ startToCloseTimeout: 10 * 60_000 });

export async function burstBaselineWorkflow(x: number): Promise<number> {
  return burstStep(x);
}

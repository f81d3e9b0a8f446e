import { DEFAULT_SCHEDULE_START_RPS } from '../config';

/*
 * Dynamic config of the embedded server: what lets a burst of scheduled runs (many jobs due at one
 * instant) start promptly. Key names are the Temporal server's (common/dynamicconfig/constants.go);
 * `temporal server start-dev` takes each as `--dynamic-config-value KEY=JSON`.
 */

/** The server key of the per-namespace start rate of scheduled workflows (Temporal's default: 30/s). */
export const SCHEDULE_START_RPS_KEY = 'worker.schedulerNamespaceStartWorkflowRPS';

/** What the embedded server's dynamic config is made of. */
export interface DevServerTuning {
  /** @default {@link DEFAULT_SCHEDULE_START_RPS} */
  scheduleStartRps?: number;
  /**
   * Turn on Temporal's task queue fairness (`matching.enableFairness`, with the new matcher it needs), so
   * that runs and steps with a `fairnessKey` share dispatch by weight; without it, dispatch within one
   * priority is first come first served. @default false (Temporal's default)
   */
  fairness?: boolean;
}

/** The dynamic config values of the embedded server, by server key. */
export function devServerDynamicConfig(tuning: DevServerTuning = {}): Record<string, unknown> {
  return {
    [SCHEDULE_START_RPS_KEY]: tuning.scheduleStartRps ?? DEFAULT_SCHEDULE_START_RPS,
    // One partition per task queue: fairness orders tasks within a partition, and a single-node dev
    // server gains nothing from four.
    ...(tuning.fairness
      ? {
          'matching.useNewMatcher': true,
          'matching.enableFairness': true,
          'matching.numTaskqueueReadPartitions': 1,
          'matching.numTaskqueueWritePartitions': 1,
        }
      : {}),
  };
}

/** `temporal server start-dev` arguments setting `values`. */
export function dynamicConfigArgs(values: Record<string, unknown>): string[] {
  return Object.entries(values).flatMap(([key, value]) => [
    '--dynamic-config-value',
    `${key}=${JSON.stringify(value)}`,
  ]);
}

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
}

/** The dynamic config values of the embedded server, by server key. */
export function devServerDynamicConfig(tuning: DevServerTuning = {}): Record<string, unknown> {
  return {
    [SCHEDULE_START_RPS_KEY]: tuning.scheduleStartRps ?? DEFAULT_SCHEDULE_START_RPS,
  };
}

/** `temporal server start-dev` arguments setting `values`. */
export function dynamicConfigArgs(values: Record<string, unknown>): string[] {
  return Object.entries(values).flatMap(([key, value]) => [
    '--dynamic-config-value',
    `${key}=${JSON.stringify(value)}`,
  ]);
}

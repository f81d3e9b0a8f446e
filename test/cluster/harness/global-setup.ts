import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import { readEnv } from '../../../src/config';
import { startCluster, stopCluster, type ClusterLayout } from './cluster';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The cluster of `npm run test:cluster`, for the fault round to break and restore. */
    clusterLayout: ClusterLayout;
  }
}

let layout: ClusterLayout | undefined;
const started = Date.now();

/**
 * vitest globalSetup of `npm run test:cluster`: starts the production-shaped cluster and points the
 * suite's own setup (test/setup/temporal-server.ts, listed after this file) at it via TEMPORAL_ADDRESS.
 */
export async function setup(project: TestProject): Promise<void> {
  const env = readEnv();
  const log = (line: string) => console.log(`[cluster] ${line}`);
  log('starting: Temporal on PostgreSQL (build on the first run takes minutes)');
  // On failure, startCluster stops whatever it had started.
  layout = await startCluster({
    home: env.home,
    namespace: env.namespace,
    pgBin: process.env.PG_BIN,
    onPhase: (phase, ms) => log(`${phase}: ${(ms / 1000).toFixed(1)} s`),
    onSetup: (printed) => log(`tflow setup: ${printed.replace(/\n\s*/g, '; ')}`),
  });
  log(
    `ready at ${layout.temporal.address} after ${((Date.now() - started) / 1000).toFixed(1)} s; logs in ${layout.runDir}`,
  );
  process.env.TEMPORAL_ADDRESS = layout.temporal.address;
  project.provide('clusterLayout', layout);
}

export async function teardown(): Promise<void> {
  if (!layout) return;
  await stopCluster(layout);
  console.log(`[cluster] stopped; ${((Date.now() - started) / 1000).toFixed(1)} s since start`);
}

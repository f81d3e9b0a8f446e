import path from 'node:path';
import { writeFile, mkdir } from 'node:fs/promises';
import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import { readEnv } from '../../src/config';
import { DevServer, ensureTemporalCli } from '../../src/devserver';
import { buildWorkflowBundle } from '../../src/worker/workflow-bundle';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalNamespace: string;
    workflowBundlePath: string;
    /** The bundle of a worker with `tracing` (Temporal's OpenTelemetry workflow interceptors too). */
    tracedWorkflowBundlePath: string;
    /** The Temporal CLI the suite found or installed (also with TEMPORAL_ADDRESS: tests run `temporal` and own servers). */
    temporalCli: string;
  }
}

let server: DevServer | undefined;

/**
 * Starts one in-memory Temporal dev server for the suite (or uses TEMPORAL_ADDRESS when set) and bundles
 * the workflows once, so that each test's worker starts in milliseconds.
 */
export async function setup(project: TestProject): Promise<void> {
  const env = readEnv();
  let address = env.temporalAddress;
  if (!address) {
    server = await DevServer.startEphemeral(env);
    address = server.address;
  }
  // The bundles a worker runs (buildWorkflowBundle, as `npm run build` ships them: preloaded modules
  // included), without and with tracing.
  const [bundle, traced] = await Promise.all([
    buildWorkflowBundle(quietLogger),
    buildWorkflowBundle(quietLogger, { traced: true }),
  ]);
  const bundlePath = path.join(env.home, 'test-workflow-bundle.js');
  const tracedPath = path.join(env.home, 'test-workflow-bundle-traced.js');
  await mkdir(env.home, { recursive: true });
  await writeFile(bundlePath, bundle.code);
  await writeFile(tracedPath, traced.code);
  project.provide('temporalAddress', address);
  project.provide('temporalNamespace', env.namespace);
  project.provide('workflowBundlePath', bundlePath);
  project.provide('tracedWorkflowBundlePath', tracedPath);
  const cli =
    server?.cli.path ??
    (await ensureTemporalCli({ explicitPath: env.temporalCli, searchPath: env.path, home: env.home })).path;
  project.provide('temporalCli', cli);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}

const noop = () => undefined;
const quietLogger = {
  trace: noop,
  debug: noop,
  info: noop,
  warn: console.warn,
  error: console.error,
  log: noop,
};

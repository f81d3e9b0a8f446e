import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import { ensureJaeger, JAEGER_VERSION } from '../helpers/jaeger';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Jaeger's binary, built from the Go module proxy into .tflow/jaeger/ (test/helpers/jaeger.ts). */
    jaegerBinary: string;
  }
}

/**
 * Builds Jaeger once for `npm run test:tracing` (cached in .tflow/jaeger/ afterwards). A cold build took
 * 39 min of wall time (555 s of CPU) on the shared 2-core machine: that is why this suite is not part of
 * `npm test`.
 */
export async function setup(project: TestProject): Promise<void> {
  const jaeger = await ensureJaeger();
  if (jaeger.built) console.log(`built Jaeger ${JAEGER_VERSION} in ${(jaeger.ms / 1000).toFixed(0)} s`);
  project.provide('jaegerBinary', jaeger.path);
}

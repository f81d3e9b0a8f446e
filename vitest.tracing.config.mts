import { defineConfig } from 'vitest/config';
import { resolve } from './vitest.resolve.mjs';

/*
 * `npm run test:tracing`: traces read back from a real Jaeger (test/tracing/), built from the Go module
 * proxy on first use (test/setup/jaeger-binary.ts: minutes of CPU, so not in `npm test`), against the
 * suite's Temporal dev server (test/setup/temporal-server.ts). The package's own names resolve to src/ (vitest.resolve.mts).
 */
export default defineConfig({
  resolve,
  test: {
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 180_000,
    env: { TZ: 'UTC' },
    include: ['test/tracing/**/*.test.ts'],
    globalSetup: ['test/setup/jaeger-binary.ts', 'test/setup/temporal-server.ts'],
  },
});

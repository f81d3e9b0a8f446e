import { defineConfig } from 'vitest/config';

import { resolve } from './vitest.resolve.mjs';

/*
 * Two projects: `unit` needs no server and runs in seconds (`npm run test:unit`); `package` builds the package and imports it as a user does; `integration` (with the
 * chaos and replay tests) gets one real Temporal dev server for the whole project, started by its global
 * setup (or TEMPORAL_ADDRESS). `npm test` runs both.
 */
const shared = {
  // The Temporal worker is a native (Rust) addon: processes, not threads.
  pool: 'forks' as const,
  testTimeout: 60_000,
  hookTimeout: 120_000,
  env: { TZ: 'UTC' },
};

export default defineConfig({
  test: {
    // Vitest runs CPUs - 1 files at once by default: one on a 2-core machine, where most integration files
    // wait on the server rather than compute. Two at a time fill much of that wait; three did more, but
    // left the timing-sensitive outage test short of CPU once when the machine had other work.
    maxWorkers: 2,
    projects: [
      { resolve, test: { ...shared, name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      // The built package in a consumer's node_modules (builds into a temporary folder; no server).
      { resolve, test: { ...shared, name: 'package', include: ['test/package/**/*.test.ts'] } },
      {
        resolve,
        test: {
          ...shared,
          name: 'integration',
          include: [
            'test/integration/**/*.test.ts',
            'test/chaos/**/*.test.ts',
            'test/replay/**/*.test.ts',
            // The model-based checker's short run (its long run: npm run check:model).
            'test/checker/**/*.test.ts',
          ],
          // One real Temporal dev server for the project; each test uses its own task queue and ids.
          globalSetup: ['test/setup/temporal-server.ts'],
        },
      },
    ],
  },
});

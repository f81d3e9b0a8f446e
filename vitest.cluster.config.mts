import { defineConfig } from 'vitest/config';
import { resolve } from './vitest.resolve.mjs';

/*
 * `npm run test:cluster`: the integration and chaos suites against a production-shaped cluster (Temporal
 * 1.32 built from source, PostgreSQL persistence, SQL visibility) that test/cluster/harness starts and
 * stops; then the fault round (test/cluster), which kills the server and PostgreSQL, alone.
 */
const common = {
  pool: 'forks' as const,
  testTimeout: 120_000,
  hookTimeout: 180_000,
  env: { TZ: 'UTC' },
};

export default defineConfig({
  test: {
    // The cluster first (it sets TEMPORAL_ADDRESS), then the suite's usual setup, which uses that address.
    globalSetup: ['test/cluster/harness/global-setup.ts', 'test/setup/temporal-server.ts'],
    reporters: ['default', './test/cluster/harness/phase-reporter.ts'],
    projects: [
      {
        resolve,
        test: {
          ...common,
          name: 'suite',
          include: [
            'test/integration/**/*.test.ts',
            'test/chaos/**/*.test.ts',
            'test/cluster/compose-setup.test.ts',
          ],
          exclude: [
            // Both start the embedded dev server (`tflow dev`, `npm start` without TEMPORAL_ADDRESS):
            // what they test is that server, not the cluster.
            'test/integration/devserver.test.ts',
            'test/integration/npm-start.test.ts',
          ],
          sequence: { groupOrder: 0 },
        },
      },
      {
        resolve,
        test: {
          ...common,
          name: 'faults',
          // The fault round, then the model-based checker, which kills the server and stops PostgreSQL
          // under its own seeded load (CHECK_DURATION, FUZZ_SEED; see docs/testing.md).
          include: ['test/cluster/faults.test.ts', 'test/checker/checker.test.ts'],
          // Breaking the server must not hit the suite's tests: this project starts after the suite ends.
          // One file at a time, so its faults never overlap either.
          poolOptions: { forks: { singleFork: true } },
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One real Temporal dev server for the whole suite; each test uses its own task queue and ids.
    globalSetup: ['test/setup/temporal-server.ts'],
    // The Temporal worker is a native (Rust) addon: processes, not threads.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { TZ: 'UTC' },
  },
});

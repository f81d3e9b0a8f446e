import path from 'node:path';
import ts from 'typescript';
import { defineConfig } from 'vitest/config';

/*
 * The package's own names (`temporal-flow`, `temporal-flow/worker`, ...) resolve to src/, as tsx and tsc
 * resolve them through tsconfig.json's `paths`: without this, vitest follows package.json's `exports` into
 * dist/, which only `npm run build` writes, and a fresh clone's `npm test` fails. The built package itself is
 * tested by the `package` project, which builds it into a temporary folder.
 */
const { config: tsconfig, error } = ts.readConfigFile(path.join(import.meta.dirname, 'tsconfig.json'), (f) =>
  ts.sys.readFile(f),
);
if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
const paths = (tsconfig as { compilerOptions: { paths: Record<string, [string]> } }).compilerOptions.paths;
const resolve = {
  // Exact names only: a plain string would also match `temporal-flow/worker` as a prefix of `temporal-flow`.
  alias: Object.entries(paths).map(([name, [target]]) => ({
    find: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    replacement: path.resolve(import.meta.dirname, target),
  })),
};

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

import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

/*
 * docs/testing.md says createScheduleTestEnv works the same in vitest, jest and node:test: here it runs
 * under `node --test` (Node's own runner, no vitest in that process). Jest is not a dependency of this
 * repository and is not run; nothing under src/testing/schedule-env imports a test framework.
 */
it(
  'createScheduleTestEnv runs under node:test, with its assertions checked by that runner',
  { timeout: 60_000 },
  async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-reporter', 'tap', 'test/fixtures/schedule-env.node-test.ts'],
      { cwd: path.resolve(__dirname, '../..'), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(out).toMatch(/^# pass 1$/m);
    expect(out).toMatch(/^# fail 0$/m);
    expect(code).toBe(0);
  },
);

import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/devserver/ports';

const root = path.resolve(__dirname, '../..');

/** Runs the real `tflow` process to its end: exit code, stdout, stderr. */
async function tflowProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', ...args],
      { cwd: root, env: { ...process.env, NO_COLOR: '1' } },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('tflow refuses bad options before it connects (a usage error exits 2, even with no server)', () => {
  it.each([['runs'], ['dead-letters']])(
    '%s --since with a value that is neither a duration nor an instant',
    async (command) => {
      // Nothing listens there: a command that connected first would exit 1, "server unreachable".
      const address = `127.0.0.1:${await freePort()}`;
      const { code, stdout, stderr } = await tflowProcess([
        command,
        '--address',
        address,
        '--since',
        'yesterday',
      ]);
      expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
      expect(stderr.split('\n')[0]).toBe(
        `error: option '--since <when>' argument 'yesterday' is invalid. --since "yesterday" is not a duration: write milliseconds as a number or a string such as '30s', '5m', '2h', '1d'`,
      );
    },
    60_000,
  );
});

